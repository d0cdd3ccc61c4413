# Two set-up commands: `make run` (the app, or the CLI on the bundled sample without a display)
# and `make test` (the test suite). Both set up everything on a fresh machine.
UV := .tools/bin/uv

.PHONY: run test lint system env bundle
run: system env
	@if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] || [ "$$(uname -s)" = Darwin ]; then \
		.venv/bin/whisperflow; \
	else \
		echo "No display: captioning the bundled sample on the command line." >&2; \
		.venv/bin/whisperflow stream assets/sample.wav --pace realtime; \
	fi

test: system env lint
	.venv/bin/python -m pytest

lint: env   # ruff, configured in pyproject.toml: lint rules and the formatter's check (120 columns)
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

bundle: system env   # the Linux one-folder app in dist/WhisperFlow (see packaging/README.md)
	packaging/linux/build.sh

system:
	@scripts/system-packages.sh

env: $(UV)
	@$(UV) sync --frozen --extra dev --quiet

$(UV):
	python3 -m venv .tools
	.tools/bin/pip install --quiet uv
