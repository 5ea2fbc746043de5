"""Real servers in subprocesses for the API, dashboard and protocol tests: `engram serve` on
127.0.0.1, and `engram mcp` spoken to over stdio."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx


def engram_command() -> list[str]:
    exe = Path(sys.executable).with_name("engram")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "engram"]


def server_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env.update(ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="fake", HOME=str(home / "user"),
               NO_COLOR="1")
    env.update(extra)
    return env


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[str]
    home: Path
    db: str = ""  # the store it serves, when a test needs to open it too

    def client(self, token: str | None = None) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def log(self) -> str:
        return (self.home / "server.log").read_text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_server(home: Path, *args: str, timeout: float = 60, **env: str) -> Server:
    """Start `engram serve --port 0 --json …` and wait until /health answers."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "server.log"  # a file, not a pipe: a chatty server must never block
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            [*engram_command(), "serve", "--port", "0", "--json", *args],
            env=server_env(home, **env), stdout=subprocess.PIPE, stderr=stderr, text=True,
        )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        proc.wait(timeout=10)
        raise RuntimeError(f"engram serve did not start: {log.read_text()}")
    info = json.loads(line)
    server = Server(info["url"], proc, home)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{server.url}/health", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"engram serve never answered: {log.read_text()}")
        time.sleep(0.05)


class McpStdio:
    """`engram mcp` in a subprocess, spoken to one raw line at a time."""

    def __init__(self, env: dict[str, str], stderr_path: Path) -> None:
        self.stderr_path = stderr_path
        stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with stderr_path.open("wb") as stderr:
            self.proc = subprocess.Popen([*engram_command(), "mcp"], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr)
        self.buffer = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float = 20) -> dict[str, Any] | None:
        """The next reply (a message with an id); the server's notifications are skipped."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            if b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                message = json.loads(line)
                if "id" in message:
                    return message
                continue
            ready, _, _ = select.select([self.proc.stdout], [], [],
                                        max(0.0, deadline - time.monotonic()))
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16) if ready else b""
            if not chunk:
                return None
            self.buffer += chunk

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps(message).encode())
        reply = self.receive()
        assert reply is not None, f"no reply to {message}"
        return reply

    def close(self) -> tuple[int, str]:
        """Close its input and wait: (exit code, what it wrote on stderr)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        return code, self.stderr_path.read_text(errors="replace")

