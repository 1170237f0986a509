"""The interrupt button of a real Jupyter kernel stops a ``%%kernel`` kernel that would
run forever: the cell ends with ``KeyboardInterrupt`` (and a short traceback), fields keep
what it wrote, and the next cell works."""

import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")

pytestmark = pytest.mark.cpu

TIMEOUT = 60


def _run(client, code: str):
    """Executes ``code`` and returns (reply content, outputs)."""
    msg_id = client.execute(code)
    outputs = []
    while True:
        msg = client.get_iopub_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] in ("stream", "error", "execute_result"):
            outputs.append(msg["content"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return _reply(client, msg_id), outputs


def _reply(client, msg_id: str) -> dict:
    """The shell reply to ``msg_id``; earlier replies (wait_for_ready's kernel_info, which
    a slow kernel start can leave behind) are skipped, not taken for this one's."""
    while True:
        msg = client.get_shell_msg(timeout=TIMEOUT)
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg["content"]


def test_interrupt_button_stops_a_kernel_cell(kernelspec):
    manager = jupyter_client.KernelManager(kernel_name="ti_notebook")
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=TIMEOUT)
        reply, _ = _run(
            client,
            "ti.init(arch=ti.cpu, offline_cache=False)\nc = ti.field(ti.i32, shape=())",
        )
        assert reply["status"] == "ok"
        reply, _ = _run(
            client,
            "%%kernel\ndef forever():\n    c[None] = 3\n    while True:\n        c[None] += 0\n",
        )
        assert reply["status"] == "ok"
        # stop_on_error=False: otherwise ipykernel aborts requests that arrive just after
        # the KeyboardInterrupt reply (the next cell would get status "aborted")
        msg_id = client.execute("forever()", stop_on_error=False)
        time.sleep(1.0)  # well inside the endless loop
        manager.interrupt_kernel()
        reply = _reply(client, msg_id)  # the loop stops in ms; TIMEOUT only bounds a hang
        assert reply["status"] == "error"
        assert reply["ename"] in ("KernelInterrupted", "KeyboardInterrupt")
        traceback = "\n".join(reply["traceback"])
        assert traceback.startswith("KeyboardInterrupt: kernel 'forever' was interrupted")
        assert "forever()" in traceback  # the cell's line
        assert "launch.py" not in traceback and "kernel.py" not in traceback
        reply, outputs = _run(client, "c[None]")
        assert reply["status"] == "ok"
        assert outputs[-1]["data"]["text/plain"] == "3"
        reply, outputs = _run(client, "%%kernel\ndef seven() -> ti.i32:\n    return 7\n")
        reply, outputs = _run(client, "seven()")
        assert outputs[-1]["data"]["text/plain"] == "7"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
