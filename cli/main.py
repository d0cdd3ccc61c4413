"""The `whisperflow` command line (and the app with no arguments).

Every subcommand lives in a module with ``register(subparsers)``, which adds its parser and sets
``func``. The development tools (bench, studies) register the same way when they are installed
beside the app, as in a checkout; the bundle carries only the product's commands.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from engine.errors import WhisperFlowError
from engine.runtime.logs import LEVELS, configure_logging
from engine.runtime.startup import prepare

PRODUCT_COMMANDS = ("cli.stream", "cli.transcribe", "cli.models", "cli.machine")
TOOL_COMMANDS = ("tools.cli",)
LOG_LEVEL_HELP = "what is logged to stderr: debug shows which words the rules confirm and drop (default warning)"

log = logging.getLogger(__name__)


def command_modules() -> list[str]:
    """The product's command modules, then the development tools' where they are installed."""
    try:
        importlib.import_module("tools")
    except ImportError:
        return list(PRODUCT_COMMANDS)
    return [*PRODUCT_COMMANDS, *TOOL_COMMANDS]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="whisperflow", description="On-device live captions with Whisper on MLX.")
    parser.add_argument("--log-level", choices=LEVELS, default="warning", help=LOG_LEVEL_HELP)
    sub = parser.add_subparsers(dest="command")
    for module in command_modules():
        importlib.import_module(module).register(sub)
    for command in sub.choices.values():  # also after the command's name; the default stays the one above
        command.add_argument("--log-level", choices=LEVELS, default=argparse.SUPPRESS, help=LOG_LEVEL_HELP)
    return parser


def main(argv: list[str] | None = None) -> int:
    prepare()  # before the command modules import MLX
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and not getattr(args, "passes_through", False):
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    args.rest = rest
    if args.command is None:
        return _open_app_or_help(parser)
    configure_logging(args.log_level)
    try:
        return args.func(args)
    except WhisperFlowError as exc:
        log.debug("%s failed", args.command, exc_info=True)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _open_app_or_help(parser: argparse.ArgumentParser) -> int:
    try:
        from app.main import run_app
    except ImportError:
        parser.print_help()
        return 0
    return run_app()


if __name__ == "__main__":
    sys.exit(main())
