"""The one-hour soak: real speech through the PulseAudio virtual microphone, into the app and the CLI at once.

An hour of read speech (the long-form corpus file, repeated) plays into a private PulseAudio server's null
sink. Two listeners record its virtual microphone side by side, both with the `flow` policy:
- `whisperflow stream --device pulse --jsonl` (the command line);
- the desktop app, offscreen, started from its Start button (`python -m tools.soak --drive-app`).
Every 10 s the soak samples both processes' memory (RSS) and CPU time. Afterwards it checks, per listener:
- confirmed-word latency (stream time of confirmation − the word's end): p90 over the last 10 minutes
  ≤ the first 10 minutes' + 10 %;
- memory growth after the first 5 minutes ≤ 5 %: peak RSS over the last 10 minutes against minutes 5–15;
- the record is complete: the CLI's JSONL parses line by line and ends with a `done` record; the app's
  journal is closed complete and holds the same words the app showed, and its JSON export parses;
and writes summary.md, memory.tsv and latency.png into the output folder.

    python -m tools.soak [--minutes 60] [--out DIR]          (scripts/soak.sh)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tools.virtual_mic import MIC, start_virtual_mic, stop_virtual_mic

ROOT = Path(__file__).resolve().parents[1]
LONG_FORM = "longform/ljspeech_LJ001-0001_to_0032.wav"
SAMPLE_EVERY_S = 10.0
WINDOW_S = 600.0  # first and last 10 minutes
SETTLE_S = 300.0  # memory is compared after the first 5 minutes
MAX_P90_RISE = 0.10
MAX_RSS_GROWTH = 0.05
TAIL_S = 8.0  # listening goes on this long after the audio ends


def corpus_dir() -> Path:
    for candidate in (ROOT / "shared" / "corpus", ROOT.parent / "shared" / "corpus"):
        if candidate.is_dir():
            return candidate
    raise SystemExit("soak: the corpus (../shared/corpus) is missing")


def build_audio(minutes: float, out: Path) -> tuple[Path, str, float]:
    """Write `minutes` of the long-form file repeated (block by block) and return it, its reference and length."""
    import soundfile as sf

    from tools.bench.manifest import load_manifest

    corpus = corpus_dir()
    [entry] = [e for e in load_manifest(corpus / "manifest.tsv") if e.name == LONG_FORM]
    audio, rate = sf.read(corpus / LONG_FORM, dtype="float32")
    repeats = max(1, round(minutes * 60 * rate / len(audio)))
    path = out / "soak.wav"
    with sf.SoundFile(path, "w", rate, 1, "PCM_16") as f:
        for _ in range(repeats):
            f.write(audio)
    return path, " ".join([entry.reference] * repeats), repeats * len(audio) / rate


# --- the app, driven offscreen -----------------------------------------------------------------------


def drive_app(out: Path, seconds: float) -> int:
    """Run the app offscreen on the virtual mic for `seconds`, writing each confirmed word to app.jsonl."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from engine.runtime.startup import prepare

    prepare()
    from PySide6.QtCore import QTimer

    from app.main import WhisperFlowApp, make_application
    from engine.session.events import word_record

    qt = make_application([])
    wf = WhisperFlowApp()
    wf.settings.first_run_done = True
    wf.start()
    words = open(out / "app.jsonl", "w", encoding="utf-8")
    state = {"done": None, "error": None}

    def on_update(update) -> None:
        for w in update.confirmed:
            words.write(json.dumps(word_record(w)) + "\n")
        words.flush()

    def on_ended(done) -> None:
        state["done"] = done
        qt.quit()

    def stop() -> None:
        if wf.window.controller.state == "running":
            wf.window.start_button.click()
        else:
            qt.quit()

    controller = wf.window.controller
    controller.update.connect(on_update)
    controller.error.connect(lambda message: state.update(error=message))
    controller.session_ended.connect(on_ended)
    controller.session_started.connect(
        lambda meta: (
            print("listening: app", file=sys.stderr, flush=True),
            QTimer.singleShot(int(seconds * 1000), stop),
        )
    )
    wf.window.source_picker.refresh(select_key=f"pulse:{MIC}")
    if wf.window.source_picker.current() is None or wf.window.source_picker.current().key != f"pulse:{MIC}":
        print("soak: the app does not list the virtual microphone", file=sys.stderr)
        return 1
    QTimer.singleShot(0, wf.window.start_button.click)
    qt.exec()
    words.close()
    transcript = wf.window.current_transcript()
    wf.window.export_to(out / "app-export.json")
    (out / "app-transcript.txt").write_text(transcript.text, encoding="utf-8")
    wf.window.quit()
    if state["error"]:
        print(f"soak: the app reported: {state['error']}", file=sys.stderr)
    return 0 if state["done"] is not None else 1


# --- the run -----------------------------------------------------------------------------------------


def _wait_listening(logs: list[Path], procs: list[subprocess.Popen], timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for proc, log in zip(procs, logs):
            if proc.poll() is not None:
                raise SystemExit(f"soak: a listener exited early:\n{log.read_text(errors='replace')[-2000:]}")
        if all("listening" in log.read_text(errors="replace") for log in logs):
            return
        time.sleep(0.5)
    raise SystemExit("soak: the listeners did not start")


def _usage(pid: int) -> tuple[float, float] | None:
    """A process's resident memory (MB) and CPU time so far (s, all threads), or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        rss_pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return rss_pages * os.sysconf("SC_PAGE_SIZE") / 2**20, cpu


def _sample(procs: dict[str, subprocess.Popen], started: float, table) -> None:
    for name, proc in procs.items():
        usage = _usage(proc.pid) if proc.poll() is None else None
        if usage is not None:
            table.write(f"{time.monotonic() - started:.0f}\t{name}\t{usage[0]:.1f}\t{usage[1]:.2f}\n")
            table.flush()


def run(minutes: float, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    audio, reference, seconds = build_audio(minutes, out)
    print(f"soak: {seconds / 60:.1f} min of speech, output in {out}", file=sys.stderr)
    runtime = Path(tempfile.mkdtemp(prefix="wf-soak-pulse-"))
    server, mic = start_virtual_mic(runtime)
    env = {
        **os.environ,
        "PULSE_SERVER": mic.server,
        "QT_QPA_PLATFORM": "offscreen",
        "WHISPERFLOW_DATA_DIR": str(out / "data"),
    }
    python = sys.executable
    listen_s = seconds + TAIL_S
    logs = {"cli": out / "cli.stderr", "app": out / "app.stderr"}
    procs = {
        "cli": subprocess.Popen(
            [
                python,
                "-m",
                "cli.main",
                "stream",
                "--device",
                "pulse",
                "--policy",
                "flow",
                "--jsonl",
                str(out / "cli.jsonl"),
                "--duration",
                f"{listen_s:.0f}",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=logs["cli"].open("w"),
        ),
        "app": subprocess.Popen(
            [python, "-m", "tools.soak", "--drive-app", "--seconds", f"{listen_s:.0f}", "--out", str(out)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=logs["app"].open("w"),
        ),
    }
    try:
        _wait_listening(list(logs.values()), list(procs.values()))
        player = mic.play(audio)
        started = time.monotonic()
        with open(out / "memory.tsv", "w") as table:
            table.write("time_s\tlistener\trss_mb\tcpu_s\n")
            while any(p.poll() is None for p in procs.values()):
                _sample(procs, started, table)
                time.sleep(SAMPLE_EVERY_S)
        player.wait()
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=60)
        stop_virtual_mic(server, mic)
    meta = {"reference": reference, "seconds": seconds, "codes": {n: p.returncode for n, p in procs.items()}}
    (out / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    return report(out)


# --- the verdict -------------------------------------------------------------------------------------


def read_words(path: Path) -> tuple[list[dict], list[str]]:
    """The word records in a stream JSONL file, and the problems found reading it (lines that do not parse)."""
    problems = []
    if not path.exists():
        return [], [f"{path.name} is missing"]
    lines = path.read_text(encoding="utf-8").splitlines()
    records = []
    for n, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except ValueError:
            problems.append(f"line {n} of {path.name} does not parse")
    words = [r for r in records if r.get("type") == "word"]
    return words, problems


def latency_windows(words: list[dict], seconds: float) -> tuple[float, float, np.ndarray]:
    """p90 latency over the first and the last 10 minutes of speech, and every (end, latency) pair."""
    pairs = np.array([(w["end"], w["emitted"] - w["end"]) for w in words]).reshape(-1, 2)
    first = pairs[pairs[:, 0] < WINDOW_S, 1]
    last = pairs[pairs[:, 0] > seconds - WINDOW_S, 1]
    p90 = lambda values: float(np.percentile(values, 90)) if len(values) else float("nan")  # noqa: E731
    return p90(first), p90(last), pairs


def rss_growth(rows: list[tuple[float, float]], seconds: float) -> tuple[float, float, float]:
    """Peak RSS in the 10 minutes after the first 5, peak RSS in the last 10 minutes, and the growth as a
    fraction. Peaks, not single samples: a round's buffers come and go within one sampling interval."""
    early = [mb for t, mb in rows if SETTLE_S <= t < SETTLE_S + WINDOW_S] or [mb for _, mb in rows]
    late = [mb for t, mb in rows if t >= seconds - WINDOW_S] or [mb for _, mb in rows]
    if not early:
        return 0.0, 0.0, 0.0
    return max(early), max(late), max(late) / max(early) - 1


def cpu_per_audio_second(rows: list[tuple[float, float]]) -> float:
    """CPU seconds per second of the stream, between the first and the last sample."""
    if len(rows) < 2 or rows[-1][0] <= rows[0][0]:
        return float("nan")
    return (rows[-1][1] - rows[0][1]) / (rows[-1][0] - rows[0][0])


def _app_record_problems(out: Path, app_words: list[dict]) -> list[str]:
    from engine.session.journal import list_sessions, load_session

    journals = out / "data" / "sessions"
    sessions = list_sessions(journals)
    if len(sessions) != 1:
        return [f"{len(sessions)} journals instead of one"]
    problems = [] if sessions[0].complete else ["the app's journal is not closed complete"]
    journal = load_session(journals, sessions[0].session_id)
    if [w.text for w in journal.words] != [w["text"] for w in app_words]:
        problems.append(f"the journal holds {len(journal.words)} words, the app showed {len(app_words)}")
    try:
        json.loads((out / "app-export.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"the JSON export does not parse: {exc}")
    return problems


def report(out: Path) -> int:
    """Check both listeners' records (run.json, the JSONL files, memory.tsv) and write summary.md."""
    from engine.scoring.wer import wer_counts
    from tools.bench.plots import soak_latency

    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    reference, seconds, codes = meta["reference"], meta["seconds"], meta["codes"]
    rows = [line.split("\t") for line in (out / "memory.tsv").read_text().splitlines()[1:]]
    lines = [
        "| listener | words | WER | latency p90 first / last 10 min | mean "
        "| peak RSS min 5–15 → last 10 min | CPU s per audio s | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    series, failed = {}, False
    for name in ("cli", "app"):
        words, problems = read_words(out / f"{name}.jsonl")
        if codes[name] != 0:
            problems.append(f"exit status {codes[name]}")
        if name == "cli":
            if not problems and json.loads((out / "cli.jsonl").read_text().splitlines()[-1])["type"] != "done":
                problems.append("no done record at the end of the JSONL")
        else:
            problems += _app_record_problems(out, words)
        first, last, pairs = latency_windows(words, seconds)
        series[name] = pairs
        if not last <= first * (1 + MAX_P90_RISE):
            problems.append(f"latency p90 rose from {first:.2f} to {last:.2f} s")
        mine = [(float(t), float(mb), float(cpu)) for t, who, mb, cpu in rows if who == name]
        early, late, growth = rss_growth([(t, mb) for t, mb, _ in mine], seconds)
        if growth > MAX_RSS_GROWTH:
            problems.append(f"memory grew {growth:.1%} after the first 5 minutes")
        counts = wer_counts(reference, " ".join(w["text"] for w in words))
        lines.append(
            f"| {name} | {len(words)} | {counts.wer:.1%} | {first:.2f} / {last:.2f} s | "
            f"{pairs[:, 1].mean() if len(pairs) else float('nan'):.2f} s | {early:.0f} → {late:.0f} MB "
            f"({growth:+.1%}) | {cpu_per_audio_second([(t, c) for t, _, c in mine]):.2f} | "
            f"{'passed' if not problems else 'FAILED: ' + '; '.join(problems)} |"
        )
        failed |= bool(problems)
    soak_latency(series, out / "latency.png")
    summary = "\n".join(
        [
            f"Soak: {seconds / 60:.1f} min of speech through the PulseAudio virtual microphone, "
            "app and CLI listening at once, policy flow.",
            "",
            *lines,
            "",
        ]
    )
    (out / "summary.md").write_text(summary, encoding="utf-8")
    print(summary)
    print("SOAK PASSED" if not failed else "SOAK FAILED")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.soak", description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: a new one in /tmp)")
    parser.add_argument("--drive-app", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--report", action="store_true", help="only redo the verdict of an earlier --out run")
    args = parser.parse_args(argv)
    if not 0 < args.minutes <= 24 * 60:
        parser.error("--minutes must lie between 0 and 1440")
    out = args.out or Path(tempfile.mkdtemp(prefix="wf-soak-"))
    if args.drive_app:
        return drive_app(out, args.seconds)
    if args.report:
        return report(out)
    return run(args.minutes, out)


if __name__ == "__main__":
    sys.exit(main())
