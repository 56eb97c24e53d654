//! The record of a run written beside its network.

use std::path::Path;

use super::data::Stream;
use super::{Options, Schedule, MEASURE_LAMBDA};
use crate::nnue::Base;

/// Quotes `text` as a JSON string.
pub(super) fn json_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Where the self-play store keeps its files, as seen from the repository (a checkout has
/// `../shared` beside it; the store is read-only and only ever grows).
pub(super) const STORE: &str = "../shared/data/selfplay";

/// What the record says of where a data file is kept: the store's folder for a file in it (a
/// `selfplay` folder in `data` in `shared`, wherever the training machine mounts it) or for a
/// copy of one of its files, else self-play that lived on the training machine only. A training machine's own paths (a home
/// folder, a mount point) mean nothing to a reader of the record, so none is written.
pub(super) fn kept_at(path: &Path) -> &'static str {
    let full = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let folders: Vec<String> = full
        .parent()
        .map(|p| p.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    // A copy taken out of the store (its files are read after `xz -dc`, as its SOURCES.md
    // says) is the store's file too: the store, seen from where the trainer runs (the
    // checkout), holds it under that name, compressed or not.
    let name = file_name(path);
    let copied = [name.clone(), format!("{name}.xz")].iter().any(|n| Path::new(STORE).join(n).is_file());
    match folders.as_slice() {
        [.., a, b, c] if a == "shared" && b == "data" && c == "selfplay" => STORE,
        _ if copied => STORE,
        _ => "local self-play, not kept",
    }
}

/// A file's name without its folder.
pub(super) fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.to_string_lossy().into_owned(), |n| n.to_string_lossy().into_owned())
}

/// What a run was (its settings and data) and how it went (each epoch's losses), written as
/// JSON beside the network after every epoch, so the network can be made again and compared.
pub(super) struct Record {
    pub(super) head: String,
    pub(super) epochs: Vec<String>,
}

impl Record {
    pub(super) fn new(options: &Options, stream: &Stream, train: usize, held_out: usize) -> Record {
        let files: Vec<String> = stream
            .files
            .iter()
            .zip(&stream.sizes)
            .map(|(f, size)| {
                format!(
                    "{{\"file\": {}, \"kept\": {}, \"bytes\": {size}}}",
                    json_string(&file_name(f)),
                    json_string(kept_at(f))
                )
            })
            .collect();
        let schedule = match options.schedule {
            Schedule::Cosine => format!("\"cosine\", \"lr_end\": {:e}", options.lr_end),
            Schedule::Steps => {
                format!("\"steps\", \"decay_at\": [{}, {}]", options.decay_at[0], options.decay_at[1])
            }
        };
        let base = match options.base {
            Base::None => "none",
            Base::Psqt => "psqt",
            Base::Hce => "hce",
        };
        let init = options.init.as_deref().map_or("null".to_string(), |p| json_string(&file_name(Path::new(p))));
        let head = format!(
            "  \"engine\": \"corvid {}\",\n  \"network\": {},\n  \"data\": [\n    {}\n  ],\n  \
             \"positions\": {{\"train\": {train}, \"held_out\": {held_out}}},\n  \
             \"settings\": {{\"epochs\": {}, \"batch\": {}, \"lr\": {:e}, \"weight_decay\": {}, \"schedule\": {schedule}, \
             \"lambda\": {}, \"measure_lambda\": {MEASURE_LAMBDA}, \"min_ply\": {}, \"seed\": {}, \
             \"threads\": {}, \"base\": \"{base}\", \"init\": {init}, \"hidden\": {}, \
             \"king_buckets\": {{\"by_square\": {:?}, \"mirrored\": {}}}, \
             \"mirror\": {}, \"keep\": \"{}\", \"valid_every\": {}, \"valid_max\": {}}}",
            env!("CARGO_PKG_VERSION"),
            json_string(&file_name(Path::new(&options.out))),
            files.join(",\n    "),
            options.epochs,
            options.batch,
            options.lr,
            options.weight_decay,
            options.lambda,
            options.min_ply,
            options.seed,
            options.threads,
            options.hidden,
            options.layout.buckets,
            options.layout.mirror,
            options.mirror,
            if options.keep_last { "last" } else { "best" },
            stream.valid_every,
            stream.valid_max,
        );
        Record { head, epochs: Vec::new() }
    }

    pub(super) fn epoch(&mut self, epoch: usize, lr: f32, train: Option<f64>, valid: f64, measure: f64, seconds: f64) {
        let train = train.map_or("null".to_string(), |t| format!("{t:.6}"));
        self.epochs.push(format!(
            "{{\"epoch\": {epoch}, \"lr\": {lr:e}, \"train_loss\": {train}, \"validation_loss\": {valid:.6}, \
             \"measure\": {measure:.6}, \"seconds\": {seconds:.1}}}"
        ));
    }

    pub(super) fn write(&self, path: &Path, inputs: &[&Path], best: (usize, f64, f64)) -> Result<(), String> {
        let text = format!(
            "{{\n{},\n  \"epochs\": [\n    {}\n  ],\n  \"kept\": {{\"epoch\": {}, \"measure\": {:.6}, \"validation_loss\": {:.6}}}\n}}\n",
            self.head,
            self.epochs.join(",\n    "),
            best.0,
            best.1,
            best.2
        );
        crate::files::write_whole(path, inputs, text.as_bytes())
    }
}
