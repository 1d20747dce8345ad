"""What a logical filter's operations do, written once for the blocking classes
(``sharded.py``) and the asyncio ones (``asyncio.py``).

Each operation is a generator: it yields a list of ``Command`` for the driver to run through
its transport (they come back with their outcomes), or a float for the driver to sleep that
many seconds, and returns the operation's answer. The rules it keeps (docs/sharding.md,
"What can fail and what you get"):

- Every batch carries ``HMGET name id shards`` in its round. When the description changed
  (another id, another count, none at all) the description is read again and the reads of
  the batch are run again; a write answered ``not found`` or ``wrong shard`` was not
  applied, so it is sent again under the new description. A write that ran stands (the
  module checked its items against the shard's current place).
- A batch that cannot answer every item raises a ``BatchError`` holding every item's
  answer, the unknown positions and the failed ones with their causes.
- A reserve carries a creation id: a lost reply is resent and the result recognized as its
  own; a failed reserve deletes what it made.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, Callable, Dict, Generator, Iterable, List, Optional, Sequence, Tuple

from redis.exceptions import ResponseError

from . import _replies as R
from . import protocol as P
from ._transport import Command
from .errors import (
    AmbiguousWriteError,
    BatchError,
    FilterExistsError,
    FilterFullError,
    FilterNotFoundError,
    UnknownProtocolError,
)

Op = Generator[Any, None, Any]

# The description script of docs/sharding.md: the hash is written only when the key is absent.
DESCRIPTION_SCRIPT = (
    "if redis.call('exists', KEYS[1]) == 1 then return 0 end\n"
    "redis.call('hset', KEYS[1], unpack(ARGV)) return 1"
)
# A failed reserve's undo: the description goes only if it is still this reserve's own.
UNDO_SCRIPT = (
    "if redis.call('hget', KEYS[1], 'id') == ARGV[1] then "
    "return redis.call('del', KEYS[1]) end return 0"
)


def decimal(value: Any) -> str:
    """A number as the description and the reserve commands carry it."""
    if isinstance(value, bool):
        raise TypeError("a number, not a bool")
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _said(error: Optional[BaseException], *words: str) -> bool:
    text = str(error) if isinstance(error, ResponseError) else ""
    return any(w in text for w in words)


def _moved_away(error: Optional[BaseException]) -> bool:
    """A write refused because the shard it reached is not the description's: the key is
    missing (``NOCREATE``) or holds another filter's shard."""
    return _said(error, "not found", "wrong shard", "WRONGTYPE")


class Decoder:
    """How a command's per-item answers read: ``value(answer)`` and whether an answer is
    a full shard's refusal."""

    def __init__(self, value: Callable[[Any], Any], refusal: Callable[[Any], bool]):
        self.value = value
        self.refusal = refusal


def _error_or_negative(answer: Any) -> bool:
    if answer is None or isinstance(answer, ResponseError):
        return True
    return not isinstance(answer, bool) and R.integer(answer) < 0


def _cf_insert_refused(answer: Any) -> bool:
    # CF.INSERT answers 1 / -1 in RESP2 and true / false in RESP3: false is "no room".
    return answer is False or _error_or_negative(answer)


BOOLEANS = Decoder(R.boolean, _error_or_negative)
CF_INSERT = Decoder(R.boolean, _cf_insert_refused)
COUNTS = Decoder(R.integer, lambda a: isinstance(a, ResponseError))


class Filter:
    """A logical filter as a client holds it: its name, the description it read, the shard
    keys and routing that follow from it."""

    family = ""
    insert = b""
    mexists = b""
    info_verb = b""

    def __init__(self, name: Any, retry_timeout: float):
        self.name = P.to_bytes(name)
        self.retry_timeout = retry_timeout
        self.fields: Optional[Dict[str, str]] = None
        self.keys: List[bytes] = []
        self.count = 0
        self.route: Callable[[bytes], int] = lambda item: 0

    # -- the description ------------------------------------------------------------------

    def adopt(self, fields: Dict[str, str]) -> None:
        if fields.get("protocol") != P.PROTOCOL:
            raise UnknownProtocolError(
                f"{self.name!r} has protocol {fields.get('protocol')!r}; this client knows "
                f"{P.PROTOCOL!r}")
        if fields.get("family") != self.family:
            raise UnknownProtocolError(
                f"{self.name!r} is a {fields.get('family')!r} filter, not {self.family!r}")
        try:
            count = int(fields["shards"])
            P.slot_range(0, count)
        except (KeyError, ValueError) as e:
            raise UnknownProtocolError(f"{self.name!r} has no valid shard count: {e}") from e
        routing = fields.get("routing", P.ROUTING_SLOT)
        if routing == P.ROUTING_SLOT:
            self.route = lambda item, n=count: P.shard_of(item, n)
        elif routing == P.ROUTING_KEYED:
            try:
                secret = bytes.fromhex(fields["routing_secret"])
            except (KeyError, ValueError) as e:
                raise UnknownProtocolError(f"{self.name!r}: keyed routing without a valid "
                                           f"routing_secret") from e
            self.route = lambda item, n=count, s=secret: P.keyed_shard_of(s, item, n)
        else:
            raise UnknownProtocolError(f"{self.name!r} has routing {routing!r}; this client "
                                       f"knows {P.ROUTING_SLOT!r} and {P.ROUTING_KEYED!r}")
        self.fields = fields
        self.count = count
        self.keys = P.shard_keys(self.name, count)

    def forget(self) -> None:
        self.fields = None
        self.keys = []
        self.count = 0

    def read_description(self) -> Op:
        cmd = Command(self.name, (b"HGETALL", self.name))
        yield [cmd]
        _raise(cmd)
        fields = R.hash_fields(cmd.reply)
        if not fields:
            self.forget()
            raise FilterNotFoundError(f"no logical filter {self.name!r}")
        self.adopt(fields)
        return dict(fields)

    def description(self, refresh: bool = False) -> Op:
        if self.fields is None or refresh:
            yield from self.read_description()
        return dict(self.fields or {})

    def check(self) -> Command:
        """The round's staleness check (its answer is compared by ``stale``)."""
        return Command(self.name, (b"HMGET", self.name, b"id", b"shards"))

    def stale(self, check: Command) -> bool:
        if check.error is not None or self.fields is None:
            return True
        got = [None if v is None else R.text(v) for v in check.reply]
        return got != [self.fields.get("id"), self.fields.get("shards")]

    # -- batches ----------------------------------------------------------------------------

    def batch(self, verb: bytes, items: Iterable[Any], policy: str, decoder: Decoder,
              what: str, nocreate: bool = False, read: bool = False,
              per_item: bool = False) -> Op:
        """One command per shard (``verb key [NOCREATE ITEMS] item ...``; one per item when
        ``per_item``), pipelined per node with the staleness check; the answers in the
        caller's order, or a ``BatchError`` (see the module's text)."""
        yield from self.description()
        raw = [P.to_bytes(x) for x in items]
        results: List[Any] = [None] * len(raw)
        failed: Dict[int, BaseException] = {}
        unknown: List[int] = []
        causes: Dict[str, BaseException] = {}
        todo = list(range(len(raw)))
        deadline = time.monotonic() + self.retry_timeout
        pause = 0.02
        while todo:
            plan = self._plan(verb, raw, todo, policy, nocreate, per_item)
            check = self.check()
            yield [cmd for cmd, _ in plan] + [check]
            stale = self.stale(check)
            redo: List[int] = []
            last: Optional[BaseException] = None
            for cmd, positions in plan:
                if cmd.lost:
                    unknown.extend(positions)
                    causes[cmd.node or R.text(cmd.key)] = cmd.error  # type: ignore[assignment]
                elif cmd.error is not None:
                    if _moved_away(cmd.error) or (read and stale):
                        redo.extend(positions)
                        last = cmd.error
                    else:
                        failed.update({p: cmd.error for p in positions})
                elif read and stale:
                    redo.extend(positions)
                else:
                    self._take(cmd, positions, decoder, results, failed, what)
            if not redo and not stale:
                break
            if time.monotonic() >= deadline:
                cause = last or ResponseError(f"{what}: the description of {self.name!r} "
                                              f"kept changing")
                failed.update({p: cause for p in redo})
                break
            if stale:
                yield pause  # a re-creation under way settles first
                pause = min(pause * 2, 0.5)
            held = (self.fields or {}).get("id"), self.count
            yield from self.read_description()
            if not stale and held == ((self.fields or {}).get("id"), self.count):
                # The description holds, its shard is missing or another's: a lost shard
                # (deleted by hand), which waiting would not bring back.
                failed.update({p: last for p in redo if last is not None})
                break
            todo = sorted(redo)
        return _outcome(what, results, unknown, failed, causes)

    def _plan(self, verb: bytes, raw: List[bytes], todo: Sequence[int], policy: str,
              nocreate: bool, per_item: bool) -> List[Tuple[Command, List[int]]]:
        groups: Dict[int, List[int]] = {}
        for pos in todo:
            groups.setdefault(self.route(raw[pos]), []).append(pos)
        plan = []
        for shard, positions in sorted(groups.items()):
            key = self.keys[shard]
            head: Tuple[Any, ...] = (verb, key, b"NOCREATE", b"ITEMS") if nocreate \
                else (verb, key)
            if per_item:
                plan += [(Command(key, head + (raw[p],), policy), [p]) for p in positions]
            else:
                plan.append((Command(key, head + tuple(raw[p] for p in positions), policy),
                             positions))
        return plan

    @staticmethod
    def _take(cmd: Command, positions: List[int], decoder: Decoder, results: List[Any],
              failed: Dict[int, BaseException], what: str) -> None:
        reply = cmd.reply if isinstance(cmd.reply, list) else [cmd.reply]
        cause: Optional[BaseException] = next(
            (a for a in reply if isinstance(a, ResponseError)), None)
        for at, pos in enumerate(positions):
            answer = reply[at] if at < len(reply) else None
            if decoder.refusal(answer):
                failed[pos] = cause or ResponseError(f"{what}: the shard is full")
            else:
                results[pos] = decoder.value(answer)

    def over_shards(self, make: Callable[[bytes], Tuple[Any, ...]]) -> Op:
        """One read per shard (``make(key)``), under the staleness check: the commands, in
        shard order, once a round saw the description unchanged."""
        yield from self.description()
        deadline = time.monotonic() + self.retry_timeout
        while True:
            commands = [Command(key, make(key)) for key in self.keys]
            check = self.check()
            yield commands + [check]
            if not self.stale(check) or time.monotonic() >= deadline:
                for cmd in commands:
                    _raise(cmd)
                return commands
            yield from self.read_description()

    # -- reserve and delete -----------------------------------------------------------------

    def create(self, fields: List[Tuple[str, Any]],
               reserve: Callable[[int, bytes], Tuple[Any, ...]]) -> Op:
        """The description (with a new creation id), then each shard with ``reserve(i, key)
        + SHARD name i N SHARDID id [SHARDSECRET s]``. A lost reply is resent and recognized
        by the id; when a shard cannot be made, what was made is deleted again."""
        text = [(f, decimal(v)) for f, v in fields]
        own = dict(text)
        ident = own["id"]
        argv: List[Any] = [x for pair in text for x in pair]
        script = Command(self.name, (b"EVAL", DESCRIPTION_SCRIPT, 1, self.name, *argv))
        yield [script]
        _raise(script)
        if R.integer(script.reply) == 0:
            theirs = Command(self.name, (b"HGET", self.name, b"id"))
            yield [theirs]
            if not _said(theirs.error, "WRONGTYPE"):  # another type of key: not ours either
                _raise(theirs)
            if theirs.error is not None or theirs.reply is None \
                    or R.text(theirs.reply) != ident:
                raise FilterExistsError(f"ERR item exists: {self.name!r} exists")
        self.adopt(own)
        place: Tuple[Any, ...] = (b"SHARDID", ident.encode())
        if "routing_secret" in own:
            place += (b"SHARDSECRET", own["routing_secret"].encode())
        commands = [Command(key, reserve(i, key) + (b"SHARD", self.name, i, self.count) + place)
                    for i, key in enumerate(self.keys)]
        yield commands
        # An "item exists" is ours when the shard records our id (a lost reply's retry).
        exists = [c for c in commands if _said(c.error, "item exists")]
        if exists:
            infos = [Command(c.key, (self.info_verb, c.key)) for c in exists]
            yield infos
            for cmd, info in zip(exists, infos):
                if info.error is None and R.text(R.info(info.reply).get("Shard id")) == ident:
                    cmd.error = None
        failure = next((c.error for c in commands if c.error is not None), None)
        if failure is None:
            return None
        made = [c.key for c in commands if c.error is None]
        undo = [Command(key, (b"DEL", key)) for key in made]
        undo.append(Command(self.name, (b"EVAL", UNDO_SCRIPT, 1, self.name, ident)))
        yield undo
        self.forget()
        raise failure

    def delete(self) -> Op:
        """Every shard key, then the description; False when there was no filter."""
        try:
            yield from self.read_description()
        except FilterNotFoundError:
            return False
        commands = [Command(key, (b"DEL", key)) for key in self.keys]
        yield commands
        for cmd in commands:
            _raise(cmd)
        last = Command(self.name, (b"DEL", self.name))
        yield [last]
        _raise(last)
        self.forget()
        return True

    def info(self) -> Op:
        commands = yield from self.over_shards(lambda key: (self.info_verb, key))
        fields = dict(self.fields or {})
        shards = []
        for index, cmd in enumerate(commands):
            info = R.info(cmd.reply)
            shards.append({
                "index": index,
                "key": self.keys[index],
                "node": cmd.node,
                "slots": P.slot_range(index, self.count),
                "items": int(info.get("Number of items inserted", 0)),
                "size": int(info.get("Size", 0)),
                "info": info,
            })
        out: Dict[str, Any] = {"name": self.name, "description": fields}
        for field, value in fields.items():
            if field in ("protocol", "family", "id", "routing", "routing_secret"):
                if field != "routing_secret":  # the secret stays out of logs and dumps
                    out[field] = value
            else:
                out["shard_count" if field == "shards" else field] = R.number(value)
        out["shards"] = shards
        out["size"] = sum(s["size"] for s in shards)
        out["items"] = sum(s["items"] for s in shards)
        return out


def new_id() -> str:
    """A creation id: 16 random bytes from the OS, as 32 lowercase hex digits."""
    return secrets.token_hex(16)


def routing_fields(keyed: bool) -> List[Tuple[str, Any]]:
    if not keyed:
        return []
    return [("routing", P.ROUTING_KEYED), ("routing_secret", secrets.token_hex(16))]


def _raise(cmd: Command) -> None:
    if cmd.lost:
        raise AmbiguousWriteError(
            f"the connection to {cmd.node or 'the node'} failed after {cmd.args[0]!r} was "
            f"sent: whether it ran is unknown", [None], [0], {cmd.node or "": cmd.error})
    if cmd.error is not None:
        raise cmd.error


def _outcome(what: str, results: List[Any], unknown: List[int],
             failed: Dict[int, BaseException], causes: Dict[str, BaseException]) -> List[Any]:
    if unknown:
        raise AmbiguousWriteError(
            f"{what}: the connection failed after the command was sent, for "
            f"{len(unknown)} item(s) (nodes {sorted(causes)}): they may or may not have "
            f"been applied, and were not sent again"
            + (f"; {len(failed)} other item(s) failed" if failed else ""),
            results, unknown, causes, failed)
    if failed:
        full = all(_said(e, "full", "shard is full") for e in failed.values())
        first = next(iter(failed.values()))
        if full:
            raise FilterFullError(f"{what}: {len(failed)} item(s) refused by a full shard",
                                  results, sorted(failed), failed)
        raise BatchError(f"{what}: {len(failed)} item(s) failed (first: {first})",
                         results, (), failed)
    return results


def drive(op: Op, run: Callable[[Sequence[Command]], Any],
          sleep: Callable[[float], Any]) -> Any:
    """Runs an operation with a blocking transport."""
    try:
        step = next(op)
        while True:
            if isinstance(step, float):
                sleep(step)
            else:
                run(step)
            step = op.send(None)
    except StopIteration as stop:
        return stop.value
