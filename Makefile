# ti_notebook developer commands. On a fresh machine with Python 3.11 and pip,
# `make test` and `make lab` are all that is needed: both build .venv first.

PY ?= python3
VENV = .venv
BIN = $(VENV)/bin
PYTHON = $(BIN)/python
PIP = $(PYTHON) -m pip
STAMP = $(VENV)/.installed
# JupyterLab refuses to start as root unless told; root is usual in containers and CI.
LAB_ROOT_FLAG = $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: setup lab test test-sim lint format bench compat gpu-check clean screenshot

setup: $(STAMP)

# The stamp is rebuilt only when the package metadata changes, so re-running is fast.
# Keep setuptools' default editable mode: its import hook maps ti_notebook.magics,
# .widgets and .kernels to the top-level folders. `editable_mode=compat` only puts the
# repository root on sys.path, which loses that mapping (ti_notebook.magics not found).
$(STAMP): pyproject.toml setup.py
	test -x $(PYTHON) || $(PY) -m venv $(VENV)
	$(PIP) install --upgrade pip
	$(PIP) install -e '.[test,cuda,browser]'
	$(PYTHON) -m ti_notebook.install_kernel  # "Python 3 (ti_notebook)", the tutorials' kernel
	touch $@

$(VENV)/.installed-lab: $(STAMP)
	$(PIP) install -e '.[test,cuda,lab]'
	touch $@

$(VENV)/.installed-bench: $(STAMP)
	$(PIP) install -e '.[test,cuda,bench]'
	touch $@

# The kernelspec "Python 3 (ti_notebook)" is in .venv (make setup), where this JupyterLab
# finds it. Logs below warnings are hidden, so the URL to open is the last thing printed;
# LAB_ARGS adds options, e.g. make lab LAB_ARGS="--ip=0.0.0.0 --no-browser" to reach it
# from another machine.
LAB_ARGS ?=
lab: setup $(VENV)/.installed-lab
	$(BIN)/jupyter lab $(LAB_ROOT_FLAG) --ServerApp.log_level=WARN $(LAB_ARGS) notebooks/

test: setup
	$(PYTHON) -m pytest tests/
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The language tests again, on the CUDA backend's code run by the SIMT emulator (no GPU
# needed); tests marked cpu_only check the CPU backend's own machinery and say why.
# tests/cuda_sim is the emulator's own tier (the `cuda_sim` marker, part of `make test`).
test-sim: setup
	TI_ARCH=cuda TI_CUDA_SIM=1 $(PYTHON) -m pytest tests/lang -m "not cpu_only"

# The README's picture: the browser test keeps its screenshot (needs chromium).
screenshot: setup
	TI_SCREENSHOT_DIR=notebooks/images $(PYTHON) -m pytest -q tests/browser

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# compare.py runs ti_notebook, Taichi, Numba and NumPy side by side (one subprocess each)
# and writes benchmarks/results.md; the other scripts print ti_notebook-only figures.
bench: setup $(VENV)/.installed-bench
	echo "== benchmarks/compare.py"
	$(PYTHON) benchmarks/compare.py
	for script in benchmarks/*.py; do \
		[ -e "$$script" ] || continue; \
		[ "$$script" = benchmarks/compare.py ] && continue; \
		echo "== $$script"; \
		$(PYTHON) "$$script" || exit $$?; \
	done

# Taichi's own examples (from the taichi wheel), each run headless with Taichi and with
# ti_notebook and compared by the conformance runner (tests/conformance/); writes
# benchmarks/compat.md. Not part of `make test`: it takes a while (COMPAT_ARGS, e.g.
# "--only mpm --frames 3", narrows it down).
compat: setup $(VENV)/.installed-bench
	$(PYTHON) -m tests.conformance $(COMPAT_ARGS)

# On a machine with an NVIDIA GPU, at most 8 minutes: the `cuda` test tier, then
# benchmarks/gpu.py beside Taichi's CUDA backend; one report, benchmarks/gpu_report.md
# (a copy under $OUT when set). Without a GPU the same steps run on the fake device
# (the SIMT emulator), small and quick, and the report says so. An existing .venv is
# used as it is: a GPU machine may have no network for setup to reinstall from.
GPU_CHECK_ARGS ?=
gpu-check: $(if $(wildcard $(STAMP)),,setup)
	$(PYTHON) -m benchmarks.gpu_check $(GPU_CHECK_ARGS)

# Leaves .venv alone (others may be using it); `rm -rf .venv` for a full reset.
clean:
	rm -rf build dist *.egg-info .pytest_cache .ruff_cache
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
