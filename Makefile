# OpenBench and fastchess builds: `make` builds the engine for this machine's CPU (native
# features such as BMI2/PEXT) and copies it to $(EXE); `make EXE=/path/to/corvid-dev` names it.
EXE ?= corvid
TARGET_DIR ?= target/native

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
