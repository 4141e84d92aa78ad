"""A played game's dice from a secret key (issue 40.1): a random.Random whose every draw comes
from SHAKE-256 keyed with 256 secret bits, so no one can search the key from what a game
shows (a 32-bit seed into Mersenne Twister could be found from one opening hand and one
round's dice in a few core-hours), and no number of outputs gives another away.

The stream (battles/play/PROTOCOL.md, "Keyed dice"): block n of a domain is

    SHAKE-256(b"memeyori-dice/1" || domain || key || n as 8 bytes big-endian)

Domain b"f" feeds random(), 2,496 bytes a block: 624 little-endian 32-bit words, which
become a Mersenne Twister generator's state with its index at 0, so that its next 624
outputs are those words through MT's tempering (a bijection of 32-bit words: uniform words
stay uniform), two to a float as random.Random makes them (53 bits). The generator is
refilled from the next block before it would twist: MT's recurrence, whose outputs give
its state away, never runs, and one block's words say nothing of another's. This lets
random() be C all the way (an islice over the inner generator's random, under a chain that
asks for a new block every 312 draws), which keeps a complete game within a few per cent
of Mersenne Twister's (tests/bench/battles.py, "keyed dice").

Domain b"b" feeds getrandbits(k) (and with it randrange, choice, shuffle and sample,
which random.Random routes through _randbelow and so through getrandbits), 1,024 bytes a
block: the next ceil(k / 8) bytes, little-endian, shifted right to k bits. The two domains
never share a block: each kind of draw reads a sequence of its own.

`rng_for(seed)` is the one place that picks the generator from a record's seed: an int
(a chosen seed, a battle's, a lab's, an older game's) is random.Random(seed) as always; a
string of 64 hex digits is a key.
"""

import hashlib
import random
import secrets
import sys
from array import array
from itertools import chain, islice

PREFIX = b"memeyori-dice/1"
KEY_BYTES = 32  # 256 bits
KEY_HEX = 2 * KEY_BYTES
MT_WORDS = 624  # Mersenne Twister's state: one float block's words
FLOATS = MT_WORDS // 2  # random.Random makes a float of two words
FLOAT_BLOCK = 4 * MT_WORDS
BITS_BLOCK = 1024
# getstate()'s version word: array("Q") holds it, and it differs from random.Random's (3).
STATE_VERSION = 0x6B657965642F31  # b"keyed/1"


def new_key() -> str:
    """A fresh key, as its record stores it: 64 hex digits (256 bits from the OS)."""
    return secrets.token_hex(KEY_BYTES)


def is_key(seed) -> bool:
    if not isinstance(seed, str) or len(seed) != KEY_HEX:
        return False
    try:
        bytes.fromhex(seed)
    except ValueError:
        return False
    return True


def rng_for(seed) -> random.Random:
    """The generator a record's seed stands for: a key's stream, or Mersenne Twister."""
    if isinstance(seed, str):
        if not is_key(seed):
            raise ValueError(f"a seed is a whole number or {KEY_HEX} hex digits, not {seed!r}")
        return KeyedRandom(seed)
    return random.Random(seed)


def _block(key: bytes, domain: bytes, n: int, size: int) -> bytes:
    return hashlib.shake_256(PREFIX + domain + key + n.to_bytes(8, "big")).digest(size)


def _little(kind: str, data: bytes) -> array:
    words = array(kind, data)
    if sys.byteorder == "big":
        words.byteswap()  # the format is little-endian on every machine
    return words


class KeyedRandom(random.Random):
    """random.Random drawing from SHAKE-256 under a 256-bit key (see the module's words).

    `KeyedRandom(key)` takes 32 bytes or 64 hex digits; no argument draws a fresh key. The
    instance's `random` is the float stream's iterator (the method below only documents it
    and lets random.Random see that the class draws its own)."""

    def __init__(self, key=None):
        self._key = b""
        super().__init__(key)

    def seed(self, a=None, version=2):
        if a is None:
            a = secrets.token_bytes(KEY_BYTES)
        elif isinstance(a, str):
            if not is_key(a):
                raise ValueError(f"a key is {KEY_HEX} hex digits")
            a = bytes.fromhex(a)
        if not isinstance(a, (bytes, bytearray)) or len(a) != KEY_BYTES:
            raise TypeError(f"a key is {KEY_BYTES} bytes or {KEY_HEX} hex digits")
        self._key = bytes(a)
        self.gauss_next = None
        self._start(0, 0, 0, b"")

    @property
    def key(self) -> str:
        return self._key.hex()

    # -- the float stream: random() ------------------------------------------------------
    def _start(self, float_block: int, float_used: int, bits_block: int, bits: bytes) -> None:
        self._float_block = float_block  # the block being read (or, before a draw, the next)
        self._skip = float_used  # floats of that block already drawn (a restored state)
        self._reading = False  # no block made yet: the state is where _start began
        self._bits_block, self._bits = bits_block, bits
        self._mt = random.Random(0)
        # chain.from_iterable asks _blocks for a block only when the last one is spent, so
        # every other draw is islice's, the callable iterator's and MT's random(), all C.
        self.random = chain.from_iterable(self._blocks(float_block, float_used)).__next__

    def _blocks(self, n: int, skip: int):
        mt, make = self._mt, self._mt.random
        while True:
            words = _little("I", _block(self._key, b"f", n, FLOAT_BLOCK))
            mt.setstate((3, (*words, 2 * skip), None))  # MT's index: the next word to read
            self._float_block, self._reading = n, True
            yield islice(iter(make, None), FLOATS - skip)
            n, skip = n + 1, 0

    def random(self) -> float:
        """The next float in [0, 1): the instance's own attribute (see _start) answers."""
        return self.random()

    # -- the byte stream: getrandbits() --------------------------------------------------
    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) >> 3
        while len(self._bits) < size:
            self._bits += _block(self._key, b"b", self._bits_block, BITS_BLOCK)
            self._bits_block += 1
        taken, self._bits = self._bits[:size], self._bits[size:]
        return int.from_bytes(taken, "little") >> ((size << 3) - k)

    def randbytes(self, n: int) -> bytes:
        return self.getrandbits(n * 8).to_bytes(n, "little")

    # -- state: a replay's "where the generator started" and copies ---------------------
    def getstate(self):
        """(version, words, gauss_next) as random.Random's, with 64-bit words only (the
        engine hashes them for a policy's own dice: battles/engine/battle.py _root): the
        key's four words, where each stream stands, and how many bytes are unread."""
        used = self._mt.getstate()[1][MT_WORDS] // 2 if self._reading else self._skip
        where = (self._float_block, used, self._bits_block, len(self._bits))
        return STATE_VERSION, tuple(_little("Q", self._key)) + where, self.gauss_next

    def setstate(self, state):
        version, words, gauss = state
        if version != STATE_VERSION or len(words) != 8:
            raise ValueError("not a KeyedRandom state")
        key = array("Q", words[:4])
        if sys.byteorder == "big":
            key.byteswap()
        self._key = key.tobytes()
        float_block, used, bits_block, unread = words[4:]
        blocks = -(-unread // BITS_BLOCK)
        made = b"".join(
            _block(self._key, b"b", bits_block - blocks + i, BITS_BLOCK) for i in range(blocks)
        )
        self._start(float_block, used, bits_block, made[len(made) - unread :])
        self.gauss_next = gauss
