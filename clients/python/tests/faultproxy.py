"""A fault-injecting TCP proxy for the tests: it forwards bytes between clients and one real
server on loopback and, when told, loses a reply the way a failing network does.

``FaultProxy(host, port)`` listens on ``127.0.0.1`` (a free port, ``.port``); every client
connection gets its own connection to the server and its own thread. It reads the RESP the
client sends (only to find where commands end and what they are: ``.commands`` lists every
command name forwarded, upper case) and the replies the server sends (to count them).

- ``drop_after(verb, keep=0)``: the next request (what one ``recv`` brought, cut at the end of
  its last whole command) holding a command named ``verb`` is forwarded to the server, the
  proxy reads every reply to it (so the server has run them all), hands the client only the
  first ``keep`` of them and closes the client's connection. ``.dropped`` counts these.
- ``on_reply(text, hook)``: before forwarding the first server bytes containing ``text``, call
  ``hook()`` once (in the proxy's thread; an exception in it is kept in ``.errors``).

Use it as a context manager (or call ``close()``): the listener, every socket and every thread
are closed and joined; ``close()`` raises the first error a thread met.
"""

from __future__ import annotations

import select
import socket
import threading
from typing import Callable, List, Optional, Tuple

_TIMEOUT = 10.0


def _line_end(buf: bytes, pos: int) -> Optional[int]:
    end = buf.find(b"\r\n", pos)
    return None if end < 0 else end


def resp_end(buf: bytes, pos: int = 0) -> Optional[int]:
    """Where the RESP2/RESP3 value starting at ``pos`` ends (the index after it), or None when
    ``buf`` does not hold all of it yet."""
    if pos >= len(buf):
        return None
    kind = buf[pos:pos + 1]
    end = _line_end(buf, pos)
    if end is None:
        return None
    head = buf[pos + 1:end]
    after = end + 2
    if kind in (b"+", b"-", b":", b"_", b"#", b",", b"("):
        return after
    if kind in (b"$", b"=", b"!"):
        size = int(head)
        if size < 0:
            return after
        return after + size + 2 if len(buf) >= after + size + 2 else None
    if kind in (b"*", b"~", b">", b"%", b"|"):
        count = int(head)
        if kind in (b"%", b"|"):
            count *= 2
        for _ in range(max(count, 0)):
            after = resp_end(buf, after)
            if after is None:
                return None
        if kind == b"|":  # attributes precede the value they describe
            return resp_end(buf, after)
        return after
    raise ValueError(f"not RESP at {pos}: {buf[pos:pos + 20]!r}")


def split_commands(buf: bytes) -> Tuple[List[bytes], int]:
    """The names of the whole commands (arrays of bulk strings) at the start of ``buf`` and
    where the last of them ends."""
    names: List[bytes] = []
    pos = 0
    while pos < len(buf):
        end = resp_end(buf, pos)
        if end is None:
            break
        first = buf.find(b"\r\n", pos) + 2  # the array's header line
        name_line = buf.find(b"\r\n", first)
        names.append(buf[name_line + 2:buf.find(b"\r\n", name_line + 2)].upper())
        pos = end
    return names, pos


def count_replies(buf: bytes) -> Tuple[int, List[int]]:
    """How many whole replies ``buf`` starts with, and where each ends."""
    ends: List[int] = []
    pos = 0
    while True:
        end = resp_end(buf, pos)
        if end is None:
            return len(ends), ends
        ends.append(end)
        pos = end


class FaultProxy:
    def __init__(self, host: str, port: int):
        self.upstream = (host, port)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self.port = self._listener.getsockname()[1]
        self.host = "127.0.0.1"
        self._lock = threading.Lock()
        self._closing = False
        self._sockets: List[socket.socket] = []
        self._threads: List[threading.Thread] = []
        self._drop: Optional[Tuple[bytes, int]] = None
        self._hooks: List[Tuple[bytes, Callable[[], None]]] = []
        self.commands: List[bytes] = []
        self.dropped = 0
        self.hooked = 0
        self.errors: List[BaseException] = []
        self._wake_r, self._wake_w = socket.socketpair()
        self._accepter = threading.Thread(target=self._accept, name="faultproxy-accept",
                                          daemon=True)
        self._accepter.start()

    # -- what the test asks for -----------------------------------------------------------

    def drop_after(self, verb: str, keep: int = 0) -> None:
        with self._lock:
            self._drop = (verb.upper().encode(), keep)

    def on_reply(self, text: str, hook: Callable[[], None]) -> None:
        with self._lock:
            self._hooks.append((text.encode(), hook))

    def count(self, verb: str) -> int:
        with self._lock:
            return self.commands.count(verb.upper().encode())

    # -- the proxy ------------------------------------------------------------------------

    def _accept(self) -> None:
        while True:
            ready, _, _ = select.select([self._listener, self._wake_r], [], [])
            if self._wake_r in ready:
                return
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=_TIMEOUT)
            except OSError as e:
                client.close()
                self._fail(e)
                continue
            with self._lock:
                if self._closing:
                    client.close()
                    server.close()
                    return
                self._sockets += [client, server]
                thread = threading.Thread(target=self._pipe, args=(client, server),
                                          name="faultproxy-conn", daemon=True)
                self._threads.append(thread)
            thread.start()

    def _fail(self, error: BaseException) -> None:
        with self._lock:
            if not self._closing:
                self.errors.append(error)

    def _pipe(self, client: socket.socket, server: socket.socket) -> None:
        pending = b""
        try:
            while True:
                ready, _, _ = select.select([client, server, self._wake_r], [], [])
                if self._wake_r in ready:
                    return
                if client in ready:
                    data = client.recv(1 << 16)
                    if not data:
                        return
                    pending += data
                    names, end = split_commands(pending)
                    if not names:
                        continue
                    request, pending = pending[:end], pending[end:]
                    with self._lock:
                        self.commands += names
                        drop = self._drop if self._drop and self._drop[0] in names else None
                        if drop:
                            self._drop = None
                    server.sendall(request)
                    if drop:
                        self._lose(client, server, len(names), drop[1])
                        return
                if server in ready:
                    data = server.recv(1 << 16)
                    if not data:
                        return
                    self._run_hooks(data)
                    client.sendall(data)
        except Exception as e:  # noqa: BLE001 (reported by close())
            self._fail(e)
        finally:
            client.close()
            server.close()

    def _lose(self, client: socket.socket, server: socket.socket, replies: int,
              keep: int) -> None:
        """Reads all ``replies`` from the server, forwards the first ``keep``, then closes the
        client's connection (the caller's ``finally`` closes both sockets)."""
        server.settimeout(_TIMEOUT)
        got = b""
        while True:
            count, ends = count_replies(got)
            if count >= replies:
                break
            data = server.recv(1 << 16)
            if not data:
                raise OSError("the server closed the connection before replying")
            got += data
        with self._lock:  # counted before the client can see the connection end
            self.dropped += 1
        if keep:
            client.sendall(got[:ends[keep - 1]])
        client.shutdown(socket.SHUT_RDWR)

    def _run_hooks(self, data: bytes) -> None:
        with self._lock:
            due = [h for h in self._hooks if h[0] in data]
            self._hooks = [h for h in self._hooks if h[0] not in data]
        for _, hook in due:
            try:
                hook()
            except BaseException as e:  # noqa: BLE001 (reported by close())
                self._fail(e)
            with self._lock:
                self.hooked += 1

    def close(self) -> None:
        with self._lock:
            self._closing = True
            sockets = list(self._sockets)
            threads = list(self._threads)
        self._wake_w.send(b"x")
        self._accepter.join(_TIMEOUT)
        for thread in threads:
            thread.join(_TIMEOUT)
        for sock in sockets + [self._listener, self._wake_r, self._wake_w]:
            try:
                sock.close()
            except OSError:
                pass
        alive = [t for t in threads + [self._accepter] if t.is_alive()]
        assert not alive, f"proxy threads still running: {alive}"
        if self.errors:
            raise self.errors[0]

    def __enter__(self) -> "FaultProxy":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:
            self.close()
        else:
            try:
                self.close()
            except BaseException:  # noqa: BLE001 (the test's own failure comes first)
                pass
