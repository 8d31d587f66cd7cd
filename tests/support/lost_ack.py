"""A TCP proxy to a Bolt server that loses the acknowledgement of one commit, for the tests of
calls whose commit's outcome their client never hears (``IncompleteCommit``)."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


def tx_tag(name: str) -> bytes:
    """The bytes of a transaction's ``graphmem_tx`` metadata naming ``name``, as the driver
    packs them into BEGIN (PackStream: a tiny string's marker is 0x80 plus its length)."""
    key, value = b"graphmem_tx", name.encode()
    assert len(value) < 16
    return bytes([0x80 + len(key)]) + key + bytes([0x80 + len(value)]) + value


class LostAck:
    """Forwards Bolt both ways; once armed with a byte pattern, the next client message
    holding it (a BEGIN naming a transaction: :func:`tx_tag`) is sent on, and the server's
    next answer carrying a bookmark (its COMMIT's success) is dropped and the connection cut.
    The server has committed; the client never hears it. ``dropped`` counts the losses."""

    def __init__(self, uri: str) -> None:
        target = urlsplit(uri)
        self.target = (target.hostname or "127.0.0.1", target.port or 7687)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.pattern: bytes | None = None
        self.dropped = 0
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def uri(self) -> str:
        """The proxy's bolt URI."""
        return f"bolt://127.0.0.1:{self.port}"

    def arm(self, pattern: bytes) -> None:
        """Lose the commit acknowledgement after the next message holding ``pattern``."""
        with self.lock:
            self.pattern = pattern

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            watching = threading.Event()
            for pump in (self._up, self._down):
                threading.Thread(target=pump, args=(client, server, watching),
                                 daemon=True).start()

    def _up(self, client: socket.socket, server: socket.socket, watching: threading.Event
            ) -> None:
        try:
            while data := client.recv(65536):
                with self.lock:
                    if self.pattern is not None and self.pattern in data:
                        self.pattern = None
                        watching.set()
                server.sendall(data)
        except OSError:
            pass
        _cut(client, server)

    def _down(self, client: socket.socket, server: socket.socket, watching: threading.Event
              ) -> None:
        try:
            while data := server.recv(65536):
                if watching.is_set() and b"bookmark" in data:
                    with self.lock:
                        self.dropped += 1
                    break
                client.sendall(data)
        except OSError:
            pass
        _cut(client, server)

    def close(self) -> None:
        """Accept no more connections."""
        self.closed = True
        self.listener.close()


def _cut(*sockets: socket.socket) -> None:
    for sock in sockets:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
