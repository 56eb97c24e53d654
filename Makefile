# OpenBench and fastchess builds: `make` builds the engine for this machine's CPU (native
# features such as POPCNT, AVX2 and BMI2; .cargo/config.toml asks for them, so this is the same
# build as `cargo build --release` and shares target/release with it) and copies it to $(EXE);
# `make EXE=/path/to/corvid-dev` names it. The slider lookup is the fastest for the CPU: PEXT
# where it runs in hardware (Intel from Haswell, AMD from Zen 3), magic multiplication elsewhere
# (build.rs asks the CPU); `make PEXT=1` or `make PEXT=0` forces one. `EVALFILE=/path/net.nnue`
# embeds that network instead of src/nnue/corvid.nnue (OpenBench passes networks under test
# this way). `make install` puts the engine on the PATH ($(PREFIX)/bin, ~/.local/bin by default).
# `make TUNE=1` builds the tuning engine (its own target directory): every search and clock
# constant is a UCI option and `corvid spsa` prints OpenBench's SPSA input; at the defaults it
# plays exactly as the normal build (same bench).
EXE ?= corvid
# An OpenBench SPSA tune builds plain `make`: its branch sets `TUNE ?= 1` on the next line
# (docs/testing.md, "SPSA on OpenBench").
TUNE ?=
EVALFILE ?=
PEXT ?=
PREFIX ?= $(HOME)/.local
# On Windows cargo writes corvid.exe, and the copy is named $(EXE).exe (OpenBench looks for
# either name); EXE may be given with or without the suffix.
ifeq ($(OS),Windows_NT)
SUFFIX := .exe
OUT = $(patsubst %.exe,%,$(EXE)).exe
else
SUFFIX :=
OUT = $(EXE)
endif
export CORVID_EVALFILE = $(if $(EVALFILE),$(abspath $(EVALFILE)),)
export CORVID_PEXT = $(PEXT)

.PHONY: all portable install clean release web serve npm

ifeq ($(TUNE),1)
all:
	cargo build --release --features tune --target-dir target/tune
	cp target/tune/release/corvid$(SUFFIX) $(OUT)
else
all:
	cargo build --release
	cp target/release/corvid$(SUFFIX) $(OUT)
endif

# Without CPU-specific instructions, for other machines (its own target directory, so the
# native build is kept).
portable:
	RUSTFLAGS="" cargo build --release --target-dir target/portable
	cp target/portable/release/corvid$(SUFFIX) $(OUT)

# Every release artefact (Linux and Windows x86-64 at each level up to v3, Linux aarch64) into
# dist/ with SHA256SUMS; each is run here and its bench compared with the native build's. Not
# profile-guided unless RELEASE_PGO=1 (measured no gain: docs/build.md); .ci/release says what it
# needs.
release:
	bash .ci/release

# The web page (issue 67) into web/dist/: the engine as WebAssembly and the page's files
# (web/build.sh says what it needs and installs it). `make serve` serves it on 127.0.0.1:8000 with
# the headers that give the engine shared memory (docs/web.md).
web:
	bash web/build.sh

serve: web
	python3 web/serve.py --port 8000 web/dist

# The npm package corvid-chess (web/npm.sh): target/npm/corvid-chess-VERSION.tgz.
npm:
	bash web/npm.sh

install: all
	mkdir -p $(PREFIX)/bin
	cp target/release/corvid$(SUFFIX) $(PREFIX)/bin/corvid$(SUFFIX)
	@echo "installed $(PREFIX)/bin/corvid"

clean:
	cargo clean
