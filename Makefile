# OpenBench and fastchess builds: `make` builds the engine for this machine's CPU (native
# features such as BMI2/PEXT) and copies it to $(EXE); `make EXE=/path/to/corvid-dev` names it.
# `EVALFILE=/path/to/net.nnue` embeds that network instead of src/nnue/corvid.nnue (OpenBench
# passes networks under test this way).
EXE ?= corvid
TARGET_DIR ?= target/native
EVALFILE ?=
export CORVID_EVALFILE = $(if $(EVALFILE),$(abspath $(EVALFILE)),)

.PHONY: all portable clean

all:
	RUSTFLAGS="-C target-cpu=native" cargo build --release --target-dir $(TARGET_DIR)
	cp $(TARGET_DIR)/release/corvid $(EXE)

# Without CPU-specific instructions, for other machines.
portable:
	cargo build --release
	cp target/release/corvid $(EXE)

clean:
	cargo clean
