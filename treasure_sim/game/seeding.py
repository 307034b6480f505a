"""Seeds that reveal nothing: every random stream of a game comes from one secret key through a keyed hash.

Why: a bot holds its own ``numpy.random.Generator``, and through it its seed
(``rng.bit_generator.seed_seq``: entropy and spawn key). If the card stream were a sibling of the
bots' streams (``SeedSequence.spawn``) or seeded from numbers a bot can read (``[seed, deal]``), a
bot could rebuild the card generator and know every hole card and the whole deck.

How it works:

1. A *root key* of 32 bytes is made from the user's seed: :func:`root_key` (one BLAKE2b hash,
   cheap: what `Game` and `play_game` use) or :func:`hardened_root_key` (scrypt, about 50–100 ms
   and 16 MB on purpose: what a tournament uses, computed once per process and cached).
2. Every stream gets its own seed :func:`derive` ``(key, *path)``: BLAKE2b keyed with the root key
   over an unambiguous encoding of a path such as ``("cards", deal)`` or ``("bot", deal, rotation,
   seat)``, read as a 256-bit integer and wrapped in ``numpy.random.SeedSequence``. A bot sees
   only its own 256-bit number; without the key, that number says nothing about any other path
   (BLAKE2b as a MAC), and the key cannot be recovered from it.

Everything is deterministic: the same seed and path give the same streams on any machine.

The limit: determinism demands that whoever knows the experiment's seed and this scheme can
replay the deck; the scheme is public, so a bot writer who knows (or guesses) the seed can
derive the cards. Against bots that see only their own generator the protection is the hash,
plus, for :func:`hardened_root_key`, the cost of each guess: a small seed (0, 1, 42, a date) can
still be found by trying them all, and a table of hardened keys for small seeds can be computed
ahead of time. For untrusted bots use a large random seed (``secrets.randbits(128)``) and keep
it out of their reach until the tournament is over.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache

import numpy as np

KEY_BYTES = 32
_PERSON = b"treasure-sim/1"  # BLAKE2b personalization: these hashes are ours alone
_SALT = b"treasure-sim root key v1"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # about 16 MB and 50-100 ms on a 2020s core

Seed = int | str | bytes | np.random.SeedSequence | None


def _encode(part: object) -> bytes:
    """One path element or seed, tagged by type and length-prefixed, so no two paths share an encoding."""
    if isinstance(part, bool):
        raise TypeError(f"a seed path element may not be a bool, got {part!r}")
    if isinstance(part, int | np.integer):
        tag, data = b"i", str(int(part)).encode()
    elif isinstance(part, str):
        tag, data = b"s", part.encode()
    elif isinstance(part, bytes):
        tag, data = b"b", part
    elif isinstance(part, np.random.SeedSequence):
        entropy = part.entropy
        values = (entropy,) if isinstance(entropy, int) else tuple(entropy or ())
        tag, data = b"q", b"".join([_encode(tuple(int(v) for v in values)), _encode(tuple(part.spawn_key))])
    elif isinstance(part, tuple):
        tag, data = b"t", b"".join(_encode(p) for p in part)
    else:
        raise TypeError(f"a seed must be an int, str, bytes or SeedSequence, got {type(part).__name__}")
    return tag + len(data).to_bytes(8, "big") + data


def root_key(seed: Seed) -> bytes:
    """The 32-byte root key of a user seed, by one hash (cheap). ``None``: a fresh random key."""
    if seed is None:
        return os.urandom(KEY_BYTES)
    return hashlib.blake2b(_encode(seed), digest_size=KEY_BYTES, person=_PERSON).digest()


@lru_cache(maxsize=8)
def hardened_root_key(seed: int | str | bytes) -> bytes:
    """The root key of a user seed through scrypt: each guess at the seed costs 50-100 ms and 16 MB.

    Meant to be computed once per tournament per process (it is cached), then ``derive(key, ...)``
    for every game's streams.
    """
    return hashlib.scrypt(_encode(seed), salt=_SALT, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P,
                          maxmem=64 * 1024 * 1024, dklen=KEY_BYTES)


def derive(key: bytes, *path: str | int) -> np.random.SeedSequence:
    """The seed of the stream named by ``path`` (``"cards", deal`` or ``"bot", deal, rotation, seat``)."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a root key is {KEY_BYTES} bytes (root_key or hardened_root_key), got {len(key)}")
    digest = hashlib.blake2b(b"".join(_encode(p) for p in path), digest_size=32, key=key, person=_PERSON).digest()
    return np.random.SeedSequence(int.from_bytes(digest, "big"))


def as_seed_sequence(seed: int | np.random.SeedSequence) -> np.random.SeedSequence:
    """An explicit seed as given: an int becomes ``SeedSequence(int)``, a SeedSequence stays itself."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(f"a seed must be a whole number or a numpy SeedSequence, got {seed!r}")
    return np.random.SeedSequence(int(seed))
