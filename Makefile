# OpenBench and fastchess builds: `make` builds the engine for this machine's CPU (native
# features such as POPCNT, AVX2 and BMI2) and copies it to $(EXE); `make EXE=/path/to/corvid-dev`
# names it. The slider lookup is the fastest for the CPU: PEXT where it runs in hardware (Intel
# from Haswell, AMD from Zen 3), magic multiplication elsewhere (build.rs asks the CPU);
# `make PEXT=1` or `make PEXT=0` forces one. `EVALFILE=/path/to/net.nnue` embeds that network
# instead of src/nnue/corvid.nnue (OpenBench passes networks under test this way).
EXE ?= corvid
TARGET_DIR ?= target/native
EVALFILE ?=
PEXT ?=
export CORVID_EVALFILE = $(if $(EVALFILE),$(abspath $(EVALFILE)),)
export CORVID_PEXT = $(PEXT)

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
