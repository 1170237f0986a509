"""A frame sink for tests: keeps the frames pushed, hands out scripted events."""

from __future__ import annotations


class FakeSink:
    """A view that hands out scripted events (``pending``) and keeps frames (``pushed``)."""

    def __init__(self, events=()):
        self.pending, self.pushed = list(events), []

    def push(self, rgb):
        self.pushed.append(rgb)

    def events(self):
        out, self.pending = self.pending, []
        return out

    def close(self):
        pass
