"""A private PulseAudio server with a virtual microphone, for recording without a sound card.

`start_virtual_mic` starts `pulseaudio` in user mode in a given runtime dir (works as root), loads a null
sink and a source remapped from its monitor (a real capture device for PortAudio through the ALSA `pulse`
plugin). Audio played into the sink with `VirtualMic.play(path)` comes out of the microphone. The tests'
`virtual_mic` fixture and the soak (tools/soak.py) both use it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SINK = "wf_test_sink"
MIC = "wf_test_mic"
START_TIMEOUT_S = 10.0
PR_SET_PDEATHSIG = 1


def pactl(server: str, *args: str) -> str:
    """Run pactl against `server` and return its stdout."""
    env = {**os.environ, "PULSE_SERVER": server, "LC_ALL": "C"}
    done = subprocess.run(["pactl", *args], env=env, capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise RuntimeError(f"pactl {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


@dataclass
class VirtualMic:
    """A running private PulseAudio server with sink SINK and microphone MIC (its default source)."""

    server: str  # PULSE_SERVER value, "unix:/path/native"
    runtime_dir: Path
    pid: int  # of the pulseaudio daemon (tests may SIGSTOP it to freeze the sound server)
    sink: str = SINK
    mic: str = MIC
    device: str = "pulse"  # PortAudio device that records the server's default source (the virtual mic)
    players: list[subprocess.Popen] = field(default_factory=list)

    def pactl(self, *args: str) -> str:
        return pactl(self.server, *args)

    def load_module(self, name: str, *args: str) -> int:
        """Load a PulseAudio module and return its index."""
        return int(self.pactl("load-module", name, *args).strip())

    def module_index(self, name: str, argument_part: str) -> int:
        """Index of the loaded module `name` whose arguments contain `argument_part`."""
        for line in self.pactl("list", "short", "modules").splitlines():
            fields = line.split("\t")
            if fields[1] == name and argument_part in fields[2]:
                return int(fields[0])
        raise LookupError(f"no module {name} with {argument_part!r}")

    def play(self, path: str | os.PathLike, sink: str | None = None) -> subprocess.Popen:
        """Start playing an audio file into `sink` (default: the mic's sink); returns the paplay process."""
        env = {**os.environ, "PULSE_SERVER": self.server}
        player = subprocess.Popen(
            ["paplay", f"--device={sink or self.sink}", str(path)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.players.append(player)
        return player


def _wait_ready(proc: subprocess.Popen, server: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"pulseaudio exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
        try:
            pactl(server, "info")
            return
        except RuntimeError:
            time.sleep(0.05)
    raise RuntimeError(f"pulseaudio did not answer within {START_TIMEOUT_S} s:\n{log.read_text(errors='replace')}")


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the test process dies, so a killed test run leaves no daemon behind."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_virtual_mic(runtime_dir: Path) -> tuple[subprocess.Popen, VirtualMic]:
    """Start pulseaudio in the foreground (we keep its pid) with a null sink and a remapped mic."""
    socket = runtime_dir / "native"
    log = runtime_dir / "pulseaudio.log"
    server = f"unix:{socket}"
    # HOME and XDG_* keep the daemon's cookie/state files out of the real home; as root, pulseaudio
    # only warns ("not intended to be run as root") when --system is not given.
    env = {
        **os.environ,
        "HOME": str(runtime_dir),
        "XDG_RUNTIME_DIR": str(runtime_dir),
        "XDG_CONFIG_HOME": str(runtime_dir / "config"),
        "XDG_STATE_HOME": str(runtime_dir / "state"),
        "LC_ALL": "C",
    }
    env.pop("PULSE_SERVER", None)
    cmd = [
        "pulseaudio",
        "-n",
        "--daemonize=no",
        "--system=false",
        "--exit-idle-time=-1",
        "--use-pid-file=no",
        "--realtime=no",
        "--high-priority=no",
        f"--log-target=file:{log}",
        f"--load=module-native-protocol-unix socket={socket} auth-anonymous=1",
        # norewinds: a new paplay stream would otherwise rewrite audio the monitor already passed on,
        # and the first milliseconds of each clip would be missing from the microphone.
        f"--load=module-null-sink sink_name={SINK} norewinds=1 sink_properties=device.description=WhisperFlowTestSink",
        f"--load=module-remap-source master={SINK}.monitor source_name={MIC}"
        f" source_properties=device.description=WhisperFlowTestMic",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=_die_with_parent
    )
    try:
        _wait_ready(proc, server, log)
        pactl(server, "set-default-source", MIC)
        pactl(server, "set-default-sink", SINK)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc, VirtualMic(server=server, runtime_dir=runtime_dir, pid=proc.pid)


def stop_virtual_mic(proc: subprocess.Popen, mic: VirtualMic) -> None:
    """Stop the players and the server (resumed first, in case a test froze it)."""
    for player in mic.players:
        player.kill()
        player.wait()
    os.kill(proc.pid, signal.SIGCONT)
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
