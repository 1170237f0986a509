"""The store's own guarantees, without compiling: what two writers of one entry leave
behind is loadable whatever the interleaving of their two renames.

Why: ``test_entries_left_by_concurrent_writers_load`` failed now and then. Two processes
compiling the same kernel write the same key with different headers (the report holds
the compile time), payload then metadata. When A's metadata rename landed after B's
payload rename, the metadata's checksum described A's payload beside B's: a miss in
every later process until one rewrote it. The payload now carries its own checksum.
"""

import pytest

from ti_notebook.cache.store import CacheStore

pytestmark = pytest.mark.unit

KEY = "c0" * 32


def test_payload_from_one_writer_and_metadata_from_the_other_still_load(tmp_path):
    store = CacheStore(str(tmp_path), "v1")
    store.save(KEY, "k", {"report": {"compile_time_s": 0.1}}, b"code-A")
    meta_a = (store.dir / f"{KEY}.json").read_bytes()
    store.save(KEY, "k", {"report": {"compile_time_s": 0.2}}, b"code-B")
    (store.dir / f"{KEY}.json").write_bytes(meta_a)  # A's metadata rename came last
    header, code = store.load(KEY)
    assert code == b"code-B" and header["report"]["compile_time_s"] == 0.2


def test_a_damaged_payload_is_refused_even_with_matching_metadata(tmp_path):
    store = CacheStore(str(tmp_path), "v1")
    store.save(KEY, "k", {}, b"machine code")
    path = store.dir / f"{KEY}.tic"
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF
    path.write_bytes(bytes(data))
    assert store.load(KEY) is None


def test_an_entry_of_another_version_is_not_loaded(tmp_path):
    CacheStore(str(tmp_path), "v1").save(KEY, "k", {}, b"code")
    assert CacheStore(str(tmp_path), "v2").load(KEY) is None
    assert CacheStore(str(tmp_path), "v1").load(KEY)[1] == b"code"
