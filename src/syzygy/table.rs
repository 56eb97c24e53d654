//! One Syzygy file, WDL (`.rtbw`) or DTZ (`.rtbz`): its header, the piece orders and index
//! factors of each side (and each leading-pawn file), and the compressed values (a canonical
//! Huffman code over symbols that expand, by a binary grammar, into runs of values).
//!
//! Every read is bounds-checked: a truncated or corrupt file gives an error, never a panic.

use super::index::{binomial, flipdiag, offdiag, TABLES};

const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];
/// The most pieces a table holds.
pub const MAX_PIECES: usize = 7;

/// Which kind of file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Wdl,
    Dtz,
}

fn truncated() -> String {
    "truncated or corrupt".into()
}

/// Checked little- and big-endian reads.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&self, at: usize) -> Result<u8, String> {
        self.0.get(at).copied().ok_or_else(truncated)
    }
    fn u16(&self, at: usize) -> Result<u16, String> {
        let b = self.0.get(at..at + 2).ok_or_else(truncated)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&self, at: usize) -> Result<u32, String> {
        let b = self.0.get(at..at + 4).ok_or_else(truncated)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u32_be(&self, at: usize) -> Result<u32, String> {
        let b = self.0.get(at..at + 4).ok_or_else(truncated)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u64_be(&self, at: usize) -> Result<u64, String> {
        let b = self.0.get(at..at + 8).ok_or_else(truncated)?;
        Ok(u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }
}

/// The compressed values of one side (and file) of a table.
#[derive(Clone, Debug, Default)]
struct Pairs {
    /// 0: every position has the value `constant`.
    idx_bits: u32,
    block_size: u32,
    min_len: u32,
    constant: u16,
    index_table: usize,
    size_table: usize,
    data: usize,
    /// The first symbol of each code length, from `min_len` up.
    offsets: usize,
    /// Three bytes a symbol: its two halves, or a value.
    sympat: usize,
    /// How many values a symbol stands for, less one.
    symlen: Vec<u32>,
    /// The smallest code of each length, left-aligned in 64 bits.
    base: Vec<u64>,
    /// DTZ: the flags byte (which side, value maps).
    flags: u8,
}

/// Bytes of the index table, the size table and the data of a `Pairs`.
type Sizes = [usize; 3];

impl Pairs {
    /// Reads the description at `at`; returns it, the sizes of its three parts and where the
    /// next description starts.
    fn read(bytes: &Bytes, at: usize, tb_size: u64, kind: Kind) -> Result<(Pairs, Sizes, usize), String> {
        let flags = bytes.u8(at)?;
        if flags & 0x80 != 0 {
            let constant = if kind == Kind::Wdl { bytes.u8(at + 1)? as u16 } else { 0 };
            let pairs = Pairs { idx_bits: 0, min_len: 0, constant, flags, ..Pairs::default() };
            return Ok((pairs, [0; 3], at + 2));
        }
        let block_size = bytes.u8(at + 1)? as u32;
        let idx_bits = bytes.u8(at + 2)? as u32;
        let real_blocks = bytes.u32(at + 4)? as usize;
        let blocks = real_blocks + bytes.u8(at + 3)? as usize;
        let (max_len, min_len) = (bytes.u8(at + 8)? as u32, bytes.u8(at + 9)? as u32);
        if min_len == 0 || max_len < min_len || max_len > 64 || block_size > 32 || !(1..=40).contains(&idx_bits) {
            return Err("corrupt compression header".into());
        }
        let h = (max_len - min_len + 1) as usize;
        let symbols = bytes.u16(at + 10 + 2 * h)? as usize;
        let offsets = at + 10;
        let sympat = at + 12 + 2 * h;
        let next = sympat + 3 * symbols + (symbols & 1);
        let indices = tb_size.div_ceil(1u64 << idx_bits) as usize;
        let sizes = [6 * indices, 2 * blocks, real_blocks << block_size];

        // Value counts of the symbols, children before parents.
        let mut symlen = vec![0u32; symbols];
        let mut done = vec![false; symbols];
        for s in 0..symbols {
            symbol_length(bytes, sympat, s, &mut symlen, &mut done, 0)?;
        }
        let mut base = vec![0u64; h];
        for i in (0..h - 1).rev() {
            let (a, b) = (bytes.u16(offsets + 2 * i)? as u64, bytes.u16(offsets + 2 * i + 2)? as u64);
            base[i] = (base[i + 1] + a).checked_sub(b).ok_or("corrupt code lengths")? / 2;
        }
        for (i, b) in base.iter_mut().enumerate() {
            let shift = 64 - (min_len + i as u32);
            *b = if shift >= 64 { 0 } else { b.checked_shl(shift).unwrap_or(0) };
        }
        let pairs = Pairs {
            idx_bits,
            block_size,
            min_len,
            constant: 0,
            index_table: 0,
            size_table: 0,
            data: 0,
            offsets,
            sympat,
            symlen,
            base,
            flags,
        };
        Ok((pairs, sizes, next))
    }

    /// The value at position `idx`.
    fn value(&self, bytes: &Bytes, idx: u64, kind: Kind) -> Result<u16, String> {
        if self.idx_bits == 0 {
            return Ok(self.constant);
        }
        let main = (idx >> self.idx_bits) as usize;
        let mut lit = (idx & ((1u64 << self.idx_bits) - 1)) as i64 - (1i64 << (self.idx_bits - 1));
        let mut block = bytes.u32(self.index_table + 6 * main)? as i64;
        lit += bytes.u16(self.index_table + 6 * main + 4)? as i64;
        let block_len = |b: i64| -> Result<i64, String> {
            if b < 0 {
                return Err(truncated());
            }
            Ok(bytes.u16(self.size_table + 2 * b as usize)? as i64)
        };
        while lit < 0 {
            block -= 1;
            lit += block_len(block)? + 1;
        }
        while lit > block_len(block)? {
            lit -= block_len(block)? + 1;
            block += 1;
        }
        let mut ptr = self.data + ((block as usize) << self.block_size);
        let mut code = bytes.u64_be(ptr)?;
        ptr += 8;
        let mut bits = 0u32;
        let symlen = |s: usize| self.symlen.get(s).copied().ok_or_else(truncated);
        let mut sym;
        loop {
            let mut len = self.min_len;
            while (len - self.min_len) as usize + 1 < self.base.len() && code < self.base[(len - self.min_len) as usize]
            {
                len += 1;
            }
            let first = bytes.u16(self.offsets + 2 * (len - self.min_len) as usize)? as u64;
            sym = (first + (code.wrapping_sub(self.base[(len - self.min_len) as usize]) >> (64 - len))) as usize;
            let count = symlen(sym)? as i64 + 1;
            if lit < count {
                break;
            }
            lit -= count;
            code = if len >= 64 { 0 } else { code << len };
            bits += len;
            if bits >= 32 {
                bits -= 32;
                code |= (bytes.u32_be(ptr)? as u64) << bits;
                ptr += 4;
            }
        }
        // Down the symbol's grammar to the one value at `lit`.
        while symlen(sym)? != 0 {
            let w = self.sympat + 3 * sym;
            let (b0, b1, b2) = (bytes.u8(w)? as usize, bytes.u8(w + 1)? as usize, bytes.u8(w + 2)? as usize);
            let left = ((b1 & 0xf) << 8) | b0;
            let count = symlen(left)? as i64 + 1;
            if lit < count {
                sym = left;
            } else {
                lit -= count;
                sym = (b2 << 4) | (b1 >> 4);
            }
        }
        let w = self.sympat + 3 * sym;
        Ok(match kind {
            Kind::Wdl => bytes.u8(w)? as u16,
            Kind::Dtz => (((bytes.u8(w + 1)? & 0xf) as u16) << 8) | bytes.u8(w)? as u16,
        })
    }
}

fn symbol_length(
    bytes: &Bytes,
    sympat: usize,
    s: usize,
    symlen: &mut [u32],
    done: &mut [bool],
    depth: u32,
) -> Result<(), String> {
    if done[s] {
        return Ok(());
    }
    if depth > 4096 {
        return Err("corrupt symbol grammar".into());
    }
    let w = sympat + 3 * s;
    let (b0, b1, b2) = (bytes.u8(w)? as usize, bytes.u8(w + 1)? as usize, bytes.u8(w + 2)? as usize);
    let right = (b2 << 4) | (b1 >> 4);
    if right == 0xfff {
        symlen[s] = 0;
    } else {
        let left = ((b1 & 0xf) << 8) | b0;
        if left >= symlen.len() || right >= symlen.len() {
            return Err("corrupt symbol grammar".into());
        }
        symbol_length(bytes, sympat, left, symlen, done, depth + 1)?;
        symbol_length(bytes, sympat, right, symlen, done, depth + 1)?;
        symlen[s] = symlen[left].saturating_add(symlen[right]).saturating_add(1);
    }
    done[s] = true;
    Ok(())
}

/// How one side's (and one file's) pieces are ordered and weighted in the index.
#[derive(Clone, Debug, Default)]
struct Encoding {
    /// Piece codes in index order: 1 pawn .. 6 king, +8 for the second colour.
    pieces: Vec<u8>,
    /// At the first piece of each group of like pieces, the group's size.
    norm: Vec<usize>,
    /// At the first piece of each group, its weight in the index.
    factor: [u64; MAX_PIECES],
    pairs: Pairs,
}

/// A parsed table.
pub struct Table {
    kind: Kind,
    map: memmap2::Mmap,
    pieces: usize,
    /// Leading pawn group sizes, (first colour, other); (0, 0) without pawns.
    pawns: (usize, usize),
    /// Pawnless: 0 with three or more unique pieces, 2 with only the kings unique.
    enc_type: u8,
    /// `[side]` without pawns; `[file * 2 + side]` with (DTZ: one side, `[file]`).
    encodings: Vec<Encoding>,
    /// DTZ value maps: where the map of each WDL value starts (per file).
    map_offsets: Vec<[usize; 4]>,
    map_start: usize,
    /// The material of the table's first side, as the table counts it: its key.
    pub key: String,
}

/// The material signature `KQRvKR` of a piece list (codes with the colour bit `color_bit`
/// counting as the first side).
pub fn key_of_codes(codes: &[u8], mirror: bool) -> String {
    let side = |first: bool| -> String {
        let mut s = String::new();
        for (pt, ch) in [(6, 'K'), (5, 'Q'), (4, 'R'), (3, 'B'), (2, 'N'), (1, 'P')] {
            let n = codes.iter().filter(|&&c| c & 7 == pt && ((c & 8 == 0) == (first != mirror))).count();
            s.extend(std::iter::repeat(ch).take(n));
        }
        s
    };
    format!("{}v{}", side(true), side(false))
}

/// The cheap checks of a table file made when it is found (its size and first bytes), so that
/// a truncated or foreign file is reported at once and a good copy in a later directory used.
pub fn check_file(path: &std::path::Path, kind: Kind) -> Result<(), String> {
    use std::io::Read;
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file"));
    }
    if meta.len() % 64 != 16 {
        return Err(format!("{shown}: size {} is not that of a Syzygy table (truncated?)", meta.len()));
    }
    let mut head = [0u8; 4];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head)).map_err(|e| format!("{shown}: {e}"))?;
    let magic = if kind == Kind::Wdl { WDL_MAGIC } else { DTZ_MAGIC };
    if head != magic {
        let what = if kind == Kind::Wdl { "WDL" } else { "DTZ" };
        return Err(format!("{shown}: not a Syzygy {what} table (wrong magic bytes)"));
    }
    Ok(())
}

impl Table {
    /// Maps and parses the file at `path` for the table `name` (`KRPvKR`).
    pub fn open(path: &std::path::Path, name: &str, kind: Kind) -> Result<Table, String> {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: the file is mapped read-only and every read of it is bounds-checked; if
        // another process truncated it while mapped, reads past its new end would fault, which
        // is the documented hazard of read-only maps of files that are not ours to change.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{}: {e}", path.display()))?;
        Table::parse(map, name, kind).map_err(|e| format!("{}: {e}", path.display()))
    }

    fn parse(map: memmap2::Mmap, name: &str, kind: Kind) -> Result<Table, String> {
        if map.len() % 64 != 16 {
            return Err(format!("size {} is not that of a Syzygy table (a multiple of 64 plus 16)", map.len()));
        }
        let magic = if kind == Kind::Wdl { WDL_MAGIC } else { DTZ_MAGIC };
        if map[..4] != magic {
            return Err(format!(
                "not a Syzygy {} table (wrong magic bytes)",
                if kind == Kind::Wdl { "WDL" } else { "DTZ" }
            ));
        }
        let (first, second) = name.split_once('v').ok_or("not a table name")?;
        let pieces = name.len() - 1;
        if !(2..=MAX_PIECES).contains(&pieces) {
            return Err("not a table name".into());
        }
        let has_pawns = name.contains('P');
        let pawns = if has_pawns {
            let (a, b) = (first.matches('P').count(), second.matches('P').count());
            if b > 0 && (a == 0 || b < a) {
                (b, a)
            } else {
                (a, b)
            }
        } else {
            (0, 0)
        };
        let unique = ['K', 'Q', 'R', 'B', 'N', 'P']
            .iter()
            .map(|&c| usize::from(first.matches(c).count() == 1) + usize::from(second.matches(c).count() == 1))
            .sum::<usize>();
        let enc_type = if unique >= 3 { 0 } else { 2 };
        let split = map[4] & 1 != 0;
        let files = if map[4] & 2 != 0 { 4 } else { 1 };
        if has_pawns != (files == 4) {
            return Err("the header disagrees with the name on pawns".into());
        }
        let mut table = Table {
            kind,
            map,
            pieces,
            pawns,
            enc_type,
            encodings: Vec::new(),
            map_offsets: Vec::new(),
            map_start: 0,
            key: String::new(),
        };
        let bytes = Bytes(&table.map);
        let sides = if kind == Kind::Wdl { 2 } else { 1 };
        let mut at = 5;
        let mut sizes = Vec::new();
        // Piece orders: one block (pawnless) or one a file.
        for file in 0..files {
            let skip = if has_pawns { 1 + usize::from(pawns.1 > 0) } else { 1 };
            for side in 0..sides {
                let shift = 4 * side as u32;
                let nibble = |b: u8| (b >> shift) & 0x0f;
                let order = nibble(bytes.u8(at)?) as usize;
                let order2 = if has_pawns && pawns.1 > 0 { nibble(bytes.u8(at + 1)?) as usize } else { 0x0f };
                let codes: Vec<u8> =
                    (0..pieces).map(|i| bytes.u8(at + skip + i).map(nibble)).collect::<Result<_, _>>()?;
                if codes.iter().any(|&c| c & 7 == 0 || c & 7 == 7) {
                    return Err("corrupt piece list".into());
                }
                let mut enc = Encoding { pieces: codes, norm: vec![0; pieces], ..Encoding::default() };
                let size = if has_pawns {
                    table.norm_pawn(&mut enc);
                    table.factors_pawn(&mut enc, order, order2, file)?
                } else {
                    table.norm_piece(&mut enc);
                    table.factors_piece(&mut enc, order)?
                };
                table.encodings.push(enc);
                sizes.push(size);
            }
            at += pieces + skip;
        }
        at += at & 1;
        let stored_sides = if kind == Kind::Wdl && split { 2 } else { 1 };
        // Compression descriptions, then (DTZ) the value maps, index tables, size tables, data.
        let mut parts: Vec<(usize, Sizes)> = Vec::new();
        for file in 0..files {
            for side in 0..stored_sides {
                let e = file * sides + side;
                let (pairs, size, next) = Pairs::read(&bytes, at, sizes[e], kind)?;
                table.encodings[e].pairs = pairs;
                parts.push((e, size));
                at = next;
            }
        }
        if kind == Kind::Dtz {
            table.map_start = at;
            for file in 0..files {
                let flags = table.encodings[file].pairs.flags;
                let mut offsets = [0usize; 4];
                if flags & 2 != 0 {
                    if flags & 16 == 0 {
                        for slot in offsets.iter_mut() {
                            *slot = at + 1 - table.map_start;
                            at += 1 + bytes.u8(at)? as usize;
                        }
                    } else {
                        if has_pawns {
                            at += at & 1;
                        }
                        for slot in offsets.iter_mut() {
                            *slot = (at + 2 - table.map_start) / 2;
                            at += 2 + 2 * bytes.u16(at)? as usize;
                        }
                    }
                }
                table.map_offsets.push(offsets);
            }
            at += at & 1;
        }
        for &(e, size) in &parts {
            table.encodings[e].pairs.index_table = at;
            at += size[0];
        }
        for &(e, size) in &parts {
            table.encodings[e].pairs.size_table = at;
            at += size[1];
        }
        for &(e, size) in &parts {
            at = (at + 0x3f) & !0x3f;
            table.encodings[e].pairs.data = at;
            at += size[2];
        }
        if at > table.map.len() {
            return Err(truncated());
        }
        // A WDL table with one side stored keeps both encodings; the second uses the first's data.
        if kind == Kind::Wdl && !split {
            for file in 0..files {
                let pairs = table.encodings[file * 2].pairs.clone();
                table.encodings[file * 2 + 1].pairs = pairs;
            }
        }
        table.key = if has_pawns { name.to_string() } else { key_of_codes(&table.encodings[0].pieces, false) };
        Ok(table)
    }

    fn norm_piece(&self, enc: &mut Encoding) {
        let first = if self.enc_type == 0 { 3 } else { 2 };
        enc.norm[0] = first;
        self.group(enc, first);
    }

    fn norm_pawn(&self, enc: &mut Encoding) {
        enc.norm[0] = self.pawns.0;
        if self.pawns.1 > 0 {
            enc.norm[self.pawns.0] = self.pawns.1;
        }
        self.group(enc, self.pawns.0 + self.pawns.1);
    }

    /// Groups of like pieces from `from` on.
    fn group(&self, enc: &mut Encoding, from: usize) {
        let mut i = from;
        while i < self.pieces {
            let mut j = i;
            while j < self.pieces && enc.pieces[j] == enc.pieces[i] {
                enc.norm[i] += 1;
                j += 1;
            }
            i += enc.norm[i];
        }
    }

    fn factors_piece(&self, enc: &mut Encoding, order: usize) -> Result<u64, String> {
        let pivots: u64 = if self.enc_type == 0 { 31_332 } else { 462 };
        self.factors(enc, enc.norm[0], &[(order, 0, pivots)])
    }

    fn factors_pawn(&self, enc: &mut Encoding, order: usize, order2: usize, file: usize) -> Result<u64, String> {
        let leading = enc.norm[0];
        let first = TABLES.pawn_factor[leading - 1][file];
        let second = binomial(48 - leading as i64, enc.norm[leading] as i64);
        // The other colour's pawns (when it has any) are the second fixed group.
        let start = if order2 < 0x0f { leading + enc.norm[leading] } else { leading };
        self.factors(enc, start, &[(order, 0, first), (order2, leading, second)])
    }

    /// Each group's weight in the index, in the table's order of groups: the fixed groups of
    /// `fixed` (their place in the order, their first piece, their count of placements) where
    /// the order puts them, the groups of like pieces from `start` on between them, each
    /// choosing its squares among those left. Returns the table's size.
    fn factors(&self, enc: &mut Encoding, start: usize, fixed: &[(usize, usize, u64)]) -> Result<u64, String> {
        let corrupt = || "corrupt piece order".to_string();
        let (mut f, mut i, mut k, mut n) = (1u64, start, 0, 64 - start);
        while i < self.pieces || fixed.iter().any(|&(order, _, _)| order == k) {
            if let Some(&(_, slot, weight)) = fixed.iter().find(|&&(order, _, _)| order == k) {
                enc.factor[slot] = f;
                f = f.checked_mul(weight).ok_or_else(corrupt)?;
            } else {
                enc.factor[i] = f;
                f = f.checked_mul(binomial(n as i64, enc.norm[i] as i64)).ok_or_else(corrupt)?;
                n -= enc.norm[i];
                i += enc.norm[i];
            }
            k += 1;
            if k > MAX_PIECES + 1 {
                return Err(corrupt());
            }
        }
        Ok(f)
    }

    pub fn has_pawns(&self) -> bool {
        self.pawns.0 > 0
    }

    /// The pieces of encoding `e` in index order (codes as in the file).
    fn codes(&self, e: usize) -> &[u8] {
        &self.encodings[e].pieces
    }

    /// Looks up a placement. `squares_of(code)` gives the squares (ascending) of the pieces
    /// the code names, already in the table's colours; `flip` mirrors ranks (pawn tables when
    /// the colours are swapped). `side` is 0 or 1: which side's encoding. Returns the raw value,
    /// or `None` for a DTZ table that does not store this side.
    pub fn probe(
        &self,
        side: usize,
        flip: bool,
        squares_of: &dyn Fn(u8) -> u64,
        wdl: i32,
    ) -> Result<Option<i32>, String> {
        let bytes = Bytes(&self.map);
        let mirror = if flip { 0x38 } else { 0 };
        let mut pos = [0usize; MAX_PIECES];
        let squares = |code: u8, pos: &mut [usize; MAX_PIECES], from: &mut usize| {
            let mut bb = squares_of(code);
            while bb != 0 && *from < MAX_PIECES {
                pos[*from] = bb.trailing_zeros() as usize ^ mirror;
                *from += 1;
                bb &= bb - 1;
            }
        };
        let (e, file) = if self.has_pawns() {
            // The leading group decides the file.
            let lead = self.codes(0)[0];
            let mut n = 0;
            squares(lead, &mut pos, &mut n);
            let t = &*TABLES;
            for i in 1..self.pawns.0 {
                if t.flap[pos[0]] > t.flap[pos[i]] {
                    pos.swap(0, i);
                }
            }
            let file = (pos[0] & 7).min(7 - (pos[0] & 7));
            (if self.kind == Kind::Wdl { file * 2 + side } else { file }, file)
        } else {
            (if self.kind == Kind::Wdl { side } else { 0 }, 0)
        };
        if self.kind == Kind::Dtz && (self.encodings[e].pairs.flags & 1) as usize != side {
            return Ok(None);
        }
        let enc = &self.encodings[e];
        let mut n = if self.has_pawns() { self.pawns.0 } else { 0 };
        let mut i = n;
        while i < self.pieces {
            let code = enc.pieces[i];
            squares(code, &mut pos, &mut n);
            i += 1;
            while i < self.pieces && enc.pieces[i] == code {
                i += 1;
            }
        }
        if n != self.pieces {
            return Err("the position does not match the table".into());
        }
        let idx = if self.has_pawns() { self.encode_pawn(enc, &mut pos) } else { self.encode_piece(enc, &mut pos) };
        let raw = enc.pairs.value(&bytes, idx, self.kind)?;
        Ok(Some(match self.kind {
            Kind::Wdl => raw as i32 - 2,
            Kind::Dtz => {
                let flags = enc.pairs.flags;
                let mut v = raw as usize;
                if flags & 2 != 0 {
                    let map = [1, 3, 0, 2, 0][(wdl + 2) as usize];
                    let offset = self.map_offsets[file][map];
                    v = if flags & 16 == 0 {
                        bytes.u8(self.map_start + offset + v)? as usize
                    } else {
                        bytes.u16(self.map_start + 2 * (offset + v))? as usize
                    };
                }
                let pa = [8, 0, 0, 0, 4][(wdl + 2) as usize];
                if flags & pa == 0 || wdl & 1 != 0 {
                    v *= 2;
                }
                v as i32
            }
        }))
    }

    fn encode_piece(&self, enc: &Encoding, pos: &mut [usize; MAX_PIECES]) -> u64 {
        let t = &*TABLES;
        let n = self.pieces;
        if pos[0] & 4 != 0 {
            pos[..n].iter_mut().for_each(|p| *p ^= 7);
        }
        if pos[0] & 0x20 != 0 {
            pos[..n].iter_mut().for_each(|p| *p ^= 0x38);
        }
        let first_off = (0..n).find(|&i| offdiag(pos[i]) != 0).unwrap_or(n - 1);
        let limit = if self.enc_type == 0 { 3 } else { 2 };
        if first_off < limit && offdiag(pos[first_off]) > 0 {
            pos[..n].iter_mut().for_each(|p| *p = flipdiag(*p));
        }
        let (mut idx, start) = if self.enc_type == 0 {
            let i = usize::from(pos[1] > pos[0]);
            let j = usize::from(pos[2] > pos[0]) + usize::from(pos[2] > pos[1]);
            let idx = if offdiag(pos[0]) != 0 {
                t.triangle[pos[0]] * 63 * 62 + (pos[1] - i) * 62 + (pos[2] - j)
            } else if offdiag(pos[1]) != 0 {
                6 * 63 * 62 + t.diag[pos[0]] * 28 * 62 + t.lower[pos[1]] * 62 + pos[2] - j
            } else if offdiag(pos[2]) != 0 {
                6 * 63 * 62 + 4 * 28 * 62 + t.diag[pos[0]] * 7 * 28 + (t.diag[pos[1]] - i) * 28 + t.lower[pos[2]]
            } else {
                6 * 63 * 62
                    + 4 * 28 * 62
                    + 4 * 7 * 28
                    + t.diag[pos[0]] * 7 * 6
                    + (t.diag[pos[1]] - i) * 6
                    + (t.diag[pos[2]] - j)
            };
            (idx as u64, 3)
        } else {
            (t.kk[t.triangle[pos[0]]][pos[1]].unwrap_or(0) as u64, 2)
        };
        idx *= enc.factor[0];
        idx + groups(enc, pos, start, n, 0)
    }

    fn encode_pawn(&self, enc: &Encoding, pos: &mut [usize; MAX_PIECES]) -> u64 {
        let t = &*TABLES;
        let n = self.pieces;
        if pos[0] & 4 != 0 {
            pos[..n].iter_mut().for_each(|p| *p ^= 7);
        }
        let lead = self.pawns.0;
        // The other leading pawns, by `ptwist` descending.
        pos[1..lead].sort_by(|a, b| t.ptwist[*b].cmp(&t.ptwist[*a]));
        let extra = lead - 1;
        let mut idx = t.pawn_idx[extra][t.flap[pos[0]]];
        for i in (1..=extra).rev() {
            idx += binomial(t.ptwist[pos[i]] as i64, (extra - i + 1) as i64);
        }
        idx *= enc.factor[0];
        let mut i = lead;
        if self.pawns.1 > 0 {
            let end = i + self.pawns.1;
            idx += groups_range(enc, pos, i, end, 8);
            i = end;
        }
        idx + groups(enc, pos, i, n, 0)
    }
}

/// The index contribution of the groups of like pieces from `start` to `n`.
fn groups(enc: &Encoding, pos: &mut [usize; MAX_PIECES], start: usize, n: usize, minus: i64) -> u64 {
    let mut idx = 0;
    let mut i = start;
    while i < n {
        let size = enc.norm[i].max(1);
        idx += groups_range(enc, pos, i, i + size, minus);
        i += size;
    }
    idx
}

/// One group (`pos[from..to]`): its combination number, squares below it skipped where taken
/// by earlier pieces, weighted by the group's factor.
fn groups_range(enc: &Encoding, pos: &mut [usize; MAX_PIECES], from: usize, to: usize, minus: i64) -> u64 {
    pos[from..to].sort_unstable();
    let mut s = 0u64;
    for m in from..to {
        let p = pos[m];
        let below = pos[..from].iter().filter(|&&q| p > q).count() as i64;
        s += binomial(p as i64 - below - minus, (m - from + 1) as i64);
    }
    s.wrapping_mul(enc.factor[from])
}
