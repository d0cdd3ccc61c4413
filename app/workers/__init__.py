"""Work off the GUI thread: model preparation, streaming, level probes (QObjects on QThreads)."""
