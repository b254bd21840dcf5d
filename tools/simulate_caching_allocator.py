"""Replay a training step's allocations through PyTorch's CUDA caching allocator rules at a long length (issue 28).

A developer tool, not run by CI. tools/measure_unsloth_lora.py counts what is allocated; a card runs out when the
caching allocator cannot reserve a new segment, and what it has reserved includes the free parts of segments that
still hold a live block. This tool records the order in which that tool's step allocates and frees every storage
(at two short lengths, so each allocation's size is a + b·tokens), sizes them for a long length, and replays them
through the large pool of c10/cuda/CUDACachingAllocator.cpp as of torch 2.5 (the default settings: no
expandable segments, max_split_size unlimited, no garbage-collection threshold):

- a request is rounded up to 512 B (`round_size`); at most 1 MiB it belongs to the small pool, left out here (no
  per-token tensor of these lengths is that small);
- `get_free_block`: the smallest cached free block at least that size (best fit);
- none: `alloc_block` reserves a segment of the size rounded up to 2 MiB (kRoundLarge; 20 MiB below 10 MiB);
  if the card cannot hold it, `release_cached_blocks` gives back every wholly free segment and it retries once;
  failing that, out of memory;
- `should_split`: the rest of a block becomes a free block when more than 1 MiB (kSmallSize), else it goes with it;
- a freed block merges with free neighbours in its segment.

For each length it prints the peak allocated, the peak reserved without a limit and the smallest card (bytes for
the step, above what was held before it) on which the replay does not run out; the ratio of the last two slopes
is the allocator's reserve per token.

Usage: /work/mvenv/bin/python tools/simulate_caching_allocator.py HIDDEN,MLP,HEADS,KV_HEADS,RANK [--legacy]
           [--attention xformers] [--layers N] [--seqs 78475,342733]
           [--out tests/golden/simulated_allocator_unsloth.json]
Shapes with Llama 3.1 8B's proportions (MLP 3.5 h, 4 query heads a key head, head size 128): 1024,3584,8,2,32;
Llama 3.3 70B's (8 a key head): 2048,7168,16,2,32 with --seqs 12106,89389. Under a minute each on two cores.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import os
import sys

MIB = 1 << 20
MIN_BLOCK, SMALL_SIZE, LARGE_BUFFER, MIN_LARGE_ALLOC, ROUND_LARGE = 512, MIB, 20 * MIB, 10 * MIB, 2 * MIB
SMALL_BUFFER = 2 * MIB  # kSmallBuffer: the small pool's segments


def round_size(n: int) -> int:
    return MIN_BLOCK if n < MIN_BLOCK else MIN_BLOCK * -(-n // MIN_BLOCK)


def allocation_size(n: int) -> int:
    """`get_allocation_size` for the large pool."""
    return LARGE_BUFFER if n < MIN_LARGE_ALLOC else ROUND_LARGE * -(-n // ROUND_LARGE)


class Allocator:
    """The large pool of one device and one stream; with `small`, the small pool too (requests of at most 1 MiB
    from 2 MiB segments, a block split when at least 512 B is left: `should_split`'s small-pool rule)."""

    def __init__(self, capacity: int, small: bool = False):
        self.capacity, self.small = capacity, small
        self.small_free: list[tuple[int, int, int]] = []
        self.small_segments: set[int] = set()
        self.reserved = self.peak_reserved = self.allocated = self.peak_allocated = 0
        self.free: list[tuple[int, int, int]] = []  # (size, segment, offset), sorted: best fit is a bisect
        self.segments: dict[int, dict[int, list]] = {}  # segment -> offset -> [size, is_free]
        self.sizes: dict[int, int] = {}  # segment -> its size
        self.ends: dict[int, dict[int, int]] = {}  # segment -> where each block ends -> where it starts
        self.live: dict[int, tuple[int, int, int]] = {}
        self.count = 0

    def malloc(self, ident: int, n: int) -> bool:
        size = round_size(n)
        if n == 0 or (size <= SMALL_SIZE and not self.small):  # an empty storage takes no block
            return True
        pool = self.small_free if size <= SMALL_SIZE else self.free
        i = bisect.bisect_left(pool, (size, -1, -1))
        if i == len(pool):
            segment_size = SMALL_BUFFER if size <= SMALL_SIZE else allocation_size(size)
            if self.reserved + segment_size > self.capacity:
                self.release_cached()
                if self.reserved + segment_size > self.capacity:
                    return False
            segment, self.count = self.count, self.count + 1
            if pool is self.small_free:
                self.small_segments.add(segment)
            self.segments[segment], self.sizes[segment] = {0: [segment_size, True]}, segment_size
            self.ends[segment] = {segment_size: 0}
            self.reserved += segment_size
            self.peak_reserved = max(self.peak_reserved, self.reserved)
            bisect.insort(pool, (segment_size, segment, 0))
            i = bisect.bisect_left(pool, (size, -1, -1))
        block, segment, offset = pool.pop(i)
        blocks = self.segments[segment]
        if (block - size >= MIN_BLOCK) if pool is self.small_free else (block - size > SMALL_SIZE):
            blocks[offset] = [size, False]
            blocks[offset + size] = [block - size, True]
            self.ends[segment][offset + size], self.ends[segment][offset + block] = offset, offset + size
            bisect.insort(pool, (block - size, segment, offset + size))
        else:
            blocks[offset] = [block, False]
            size = block
        self.live[ident] = (segment, offset, size)
        self.allocated += size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return True

    def release(self, ident: int) -> None:
        if ident not in self.live:
            return
        segment, offset, size = self.live.pop(ident)
        self.allocated -= size
        pool = self.small_free if self.small_segment(segment) else self.free
        blocks = self.segments[segment]
        after = offset + size
        ends = self.ends[segment]
        if after in blocks and blocks[after][1]:
            after_size = blocks.pop(after)[0]
            _remove(pool, (after_size, segment, after))
            del ends[after]
            size += after_size
            ends[offset + size] = offset
        before = ends.get(offset)
        if before is not None and blocks[before][1]:
            _remove(pool, (blocks[before][0], segment, before))
            del blocks[offset], ends[offset]
            offset, size = before, size + blocks[before][0]
            ends[offset + size] = offset
        blocks[offset] = [size, True]
        bisect.insort(pool, (size, segment, offset))

    def small_segment(self, segment: int) -> bool:
        return segment in self.small_segments

    def release_cached(self) -> None:
        """`release_cached_blocks`: every wholly free segment back to the device."""
        for segment, blocks in list(self.segments.items()):
            if len(blocks) == 1 and blocks[0][1]:
                pool = self.small_free if self.small_segment(segment) else self.free
                _remove(pool, (self.sizes[segment], segment, 0))
                self.small_segments.discard(segment)
                self.reserved -= self.sizes.pop(segment)
                del self.segments[segment], self.ends[segment]


def _remove(pool: list, item: tuple[int, int, int]) -> None:
    """`list.remove` on a sorted list, by bisection."""
    i = bisect.bisect_left(pool, item)
    assert pool[i] == item
    del pool[i]


def replay(events, capacity: int, small: bool = False) -> Allocator | None:
    """None when the card runs out."""
    allocator = Allocator(capacity, small)
    for kind, ident, n in events:
        if kind == "a":
            if not allocator.malloc(ident, n):
                return None
        else:
            allocator.release(ident)
    return allocator


def least_card(events) -> int:
    """The smallest capacity on which the replay runs (segments are whole 2 MiB units: searched in those)."""
    unlimited = replay(events, 1 << 62)
    assert unlimited is not None
    low, high = unlimited.peak_allocated // ROUND_LARGE - 1, -(-unlimited.peak_reserved // ROUND_LARGE)
    while high - low > 1:
        mid = (low + high) // 2
        if replay(events, mid * ROUND_LARGE) is None:
            low = mid
        else:
            high = mid
    return high * ROUND_LARGE


def at_length(short, long, seqs: tuple[int, int], seq: int):
    """Each allocation's size at `seq` tokens from the same step at two lengths (a + b·tokens)."""
    assert len(short) == len(long), (len(short), len(long))
    out = []
    for (kind, ident, a), (kind2, ident2, b) in zip(short, long, strict=True):
        assert (kind, ident) == (kind2, ident2)
        out.append((kind, ident, a + (b - a) * (seq - seqs[0]) // (seqs[1] - seqs[0]) if kind == "a" else 0))
    return out


def trace(shape, seq, **run):
    """The step's storages in order of allocation and release, as tools/measure_unsloth_lora.py runs it."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import torch  # noqa: F401  (the measurement venv)

    import measure_unsloth_lora as M

    events = []

    class Recorder(M.Tracker):
        def __init__(self):
            super().__init__()
            self.ids = {}

        def track(self, tensor):
            if self.paused or not hasattr(tensor, "untyped_storage") or tensor.device.type == "meta":
                return
            key = id(tensor.untyped_storage())
            new = key not in self.sizes
            super().track(tensor)
            if new and key in self.sizes:
                self.ids[key] = len(events)
                events.append(("a", len(events), self.sizes[key]))

        def _free(self, key):
            if key in self.ids:
                events.append(("f", self.ids.pop(key), 0))
            super()._free(key)

    original, M.Tracker = M.Tracker, Recorder
    try:
        M.measure(*shape, seq, **run)
    finally:
        M.Tracker = original
    return events


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shape", help="hidden,intermediate,heads,kv_heads,rank")
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--attention", choices=("flash", "xformers"), default="flash")
    parser.add_argument("--layers", type=int, default=3)
    parser.add_argument("--seqs", default="78475,342733")
    parser.add_argument("--out", default="", help="a golden file: this run added to its runs (one per setup)")
    args = parser.parse_args(argv)
    shape = tuple(int(x) for x in args.shape.split(","))
    run = {"legacy": args.legacy, "attention": args.attention, "layers": args.layers}
    base = (256, 512)
    short, long = (trace(shape, seq, **run) for seq in base)
    rows = []
    for seq in (int(x) for x in args.seqs.split(",")):
        events = at_length(short, long, base, seq)
        unlimited = replay(events, 1 << 62)
        rows.append({"seq": seq, "peak_allocated": unlimited.peak_allocated,
                     "peak_reserved": unlimited.peak_reserved, "least_card": least_card(events)})
    (a, b) = rows[0], rows[-1]
    slope = (b["least_card"] - a["least_card"]) / (b["peak_allocated"] - a["peak_allocated"])
    result = {"shape": list(shape), **run, "rows": rows, "reserve_per_token": round(slope, 4)}
    print(json.dumps(result))
    if args.out:
        import measure_peak as P

        runs = []
        with contextlib.suppress(FileNotFoundError), open(args.out, encoding="utf-8") as f:
            runs = json.load(f)["runs"]
        setup = ("shape", "legacy", "attention", "layers")
        runs = [r for r in runs if any(r[k] != result[k] for k in setup)] + [result]
        P.write_golden(args.out, "simulate_caching_allocator.py", {"runs": runs},
                       note="; CUDACachingAllocator.cpp's large-pool rules replayed on measure_unsloth_lora.py's "
                            "step")


if __name__ == "__main__":
    main()
