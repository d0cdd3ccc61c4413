"""`whisperflow models` and `whisperflow devices`: what this machine can transcribe with, and from."""

from __future__ import annotations


def register(sub) -> None:
    p = sub.add_parser("models", help="list, prepare or remove models")
    msub = p.add_subparsers(dest="action")
    msub.add_parser("list")
    for action in ("prepare", "remove"):
        msub.add_parser(action).add_argument("name")
    p.set_defaults(func=cmd_models, action="list")
    sub.add_parser("devices", help="list audio inputs").set_defaults(func=cmd_devices)


def cmd_models(args) -> int:
    from engine.model.store import list_models, prepare_model, remove_model

    if args.action == "list":
        print(f"{'model':34} {'installed':9} {'prepared':8} {'size MB':>8}  source")
        for m in list_models():
            available, prepared = "yes" if m.available else "no", "yes" if m.prepared else "no"
            print(f"{m.name:34} {available:9} {prepared:8} {m.size_mb:8.0f}  {m.source}")
    elif args.action == "prepare":
        from tqdm import tqdm

        with tqdm(total=100, desc=f"preparing {args.name}", unit="%") as bar:

            def progress(stage: str, fraction: float) -> None:
                bar.set_postfix_str(stage)
                bar.update(int(fraction * 100) - bar.n)

            path = prepare_model(args.name, progress)
        print(path)
    else:
        print(f"removed {args.name}" if remove_model(args.name) else f"{args.name} was not prepared")
    return 0


def cmd_devices(_args) -> int:
    from engine.audio.devices import list_input_devices, system_audio_sources

    for d in list_input_devices() + system_audio_sources():
        print(f"{d.id!s:>4}  {d.kind:10} {d.name}{'  (default)' if d.is_default else ''}")
    return 0
