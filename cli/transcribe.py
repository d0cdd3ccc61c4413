"""`whisperflow transcribe`: offline whole-file transcription with word timestamps."""

from __future__ import annotations

from contextlib import nullcontext

from cli.output import JsonlOutput, check_output_path
from cli.words import add_words_file_flag, words_from
from engine.model.store import DEFAULT_MODEL


def register(sub) -> None:
    p = sub.add_parser("transcribe", help="offline whole-file transcription with word timestamps")
    p.add_argument("file")
    p.add_argument("--model", default=DEFAULT_MODEL)
    p.add_argument("--language", default=None)
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--jsonl", metavar="OUT")
    p.add_argument("--words", help="words to know: names and rare words to expect, separated by commas")
    add_words_file_flag(p)
    p.set_defaults(func=cmd_transcribe)


def cmd_transcribe(args) -> int:
    from engine.audio.files import SAMPLE_RATE, load_audio
    from engine.decoder.options import DecodeOptions
    from engine.model.whisper_model import load_model
    from engine.session.events import word_record
    from engine.stream.offline import transcribe_audio
    from engine.stream.round import Transcriber
    from engine.stream.settings import check_setting
    from engine.stream.vocabulary import build_vocabulary

    check_setting("beam_size", args.beam, "--beam")
    listed = words_from(args)
    check_output_path(args.jsonl, [args.file])
    import sys

    from engine.audio.files import file_warnings

    for warning in file_warnings(args.file):
        print(f"warning: {warning}", file=sys.stderr)
    audio = load_audio(args.file)
    loaded = load_model(args.model)
    vocabulary = build_vocabulary(listed, loaded.tokenizer(args.language))
    if vocabulary is not None and vocabulary.notice():
        print(f"note: {vocabulary.notice()}", file=sys.stderr)
    decode = DecodeOptions(beam_size=args.beam)
    transcriber = Transcriber(loaded, language=args.language, decode=decode, vocabulary=vocabulary)
    words = transcribe_audio(transcriber, audio)
    with JsonlOutput(args.jsonl) if args.jsonl else nullcontext(None) as writer:
        if writer:
            audio_s = len(audio) / SAMPLE_RATE
            for w in words:
                writer.write(word_record(w.confirmed(audio_s)))
            writer.write({"type": "done", "audio_s": round(audio_s, 3)})
    if args.jsonl != "-":
        print(" ".join(w.text for w in words))
    return 0
