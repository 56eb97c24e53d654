//! Files the user names: inputs are read only when they are regular files of a bounded size (a
//! FIFO, a device such as `/dev/zero` or a directory is refused before it is opened, so nothing
//! blocks or reads for ever), and outputs are written to a temporary file beside the target and
//! renamed over it only when complete, so an error or an interruption leaves the file that was
//! there. An output is refused when it is one of the inputs (the same file, however it is named:
//! compared by device and inode), or when it exists and is not a regular file.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The most an input read whole may hold (`read`, `read_to_string`): far above any network, book
/// or text file of positions the tools read whole, far below this machine's memory.
pub const MAX_INPUT: u64 = 4 << 30;

/// The metadata of an existing input, which must be a regular file (through symbolic links).
pub fn check_input(path: &Path) -> Result<std::fs::Metadata, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_dir() {
        return Err(format!("{}: is a directory, not a file", path.display()));
    }
    if !meta.is_file() {
        return Err(format!("{}: not a regular file (a device, FIFO or socket)", path.display()));
    }
    Ok(meta)
}

/// Opens an input for reading; it must be a regular file of at most `max` bytes.
pub fn open(path: &Path, max: u64) -> Result<File, String> {
    let meta = check_input(path)?;
    if meta.len() > max {
        return Err(format!("{}: {} bytes, more than the {max} this reads", path.display(), meta.len()));
    }
    File::open(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads an input whole; it must be a regular file of at most `max` bytes (also checked while
/// reading, in case the file grows).
pub fn read(path: impl AsRef<Path>, max: u64) -> Result<Vec<u8>, String> {
    let path = path.as_ref();
    let file = open(path, max)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.len() as u64 > max {
        return Err(format!("{}: more than the {max} bytes this reads", path.display()));
    }
    Ok(bytes)
}

/// Reads a text input whole (UTF-8); as [`read`].
pub fn read_to_string(path: impl AsRef<Path>, max: u64) -> Result<String, String> {
    let path = path.as_ref();
    String::from_utf8(read(path, max)?).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

/// How a data file is packed, by the end of its name: `.xz`, `.bz2` or `.gz` (one compressed
/// stream, or several back to back), or `.tar` (an archive of files of one kind, each plain or
/// `.bz2`, as OpenBench keeps a DATAGEN test's games: a `.pgn.tar` of `.pgn.bz2` files).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    Plain,
    Xz,
    Bzip2,
    Gzip,
    Tar,
}

impl Packing {
    /// The packing of `name` and the name without its suffix (`games.pgn.tar` -> `games.pgn`),
    /// which says what the data is.
    pub fn of(name: &str) -> (Packing, &str) {
        for (suffix, packing) in
            [(".xz", Packing::Xz), (".bz2", Packing::Bzip2), (".gz", Packing::Gzip), (".tar", Packing::Tar)]
        {
            if let Some(inner) = name.strip_suffix(suffix) {
                return (packing, inner);
            }
        }
        (Packing::Plain, name)
    }

    /// The system's tool that unpacks a compressed stream, with its arguments.
    fn tool(self) -> Option<(&'static str, [&'static str; 2])> {
        match self {
            Packing::Xz => Some(("xz", ["-dc", "--"])),
            Packing::Bzip2 => Some(("bzip2", ["-dc", "--"])),
            Packing::Gzip => Some(("gzip", ["-dc", "--"])),
            Packing::Plain | Packing::Tar => None,
        }
    }
}

/// A data input read unpacked: a plain file as it is, a compressed one through the system's own
/// `xz`, `bzip2` or `gzip` (`-dc`), a tar archive through `tar -xOf` (its files one after the
/// other), then `bzip2 -dc` where its files are `.bz2`. [`Unpacked::finish`] checks that every
/// tool ended well; dropped before, they are stopped.
pub struct Unpacked {
    reader: Box<dyn Read + Send>,
    tools: Vec<(&'static str, std::process::Child)>,
    name: String,
}

impl Unpacked {
    /// Opens `path` (a regular file) for reading unpacked, by the end of its name.
    pub fn open(path: &Path) -> Result<Unpacked, String> {
        use std::process::{Command, Stdio};
        let name = path.display().to_string();
        check_input(path)?;
        let spawn = |tool: &'static str, command: &mut Command| {
            command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| {
                format!("{name}: cannot run {tool} to unpack it ({e}); install {tool}, or unpack the file first")
            })
        };
        let (packing, _) = Packing::of(&name);
        let mut tools = Vec::new();
        let reader: Box<dyn Read + Send> =
            if let Some((tool, args)) = packing.tool() {
                let mut child = spawn(tool, Command::new(tool).args(args).arg(path).stdin(Stdio::null()))?;
                let out = child.stdout.take().expect("piped");
                tools.push((tool, child));
                Box::new(out)
            } else if packing == Packing::Tar {
                // What the archive holds decides how its files are read: all of one packing.
                let listed =
                    Command::new("tar").arg("-tf").arg(path).stdin(Stdio::null()).output().map_err(|e| {
                        format!("{name}: cannot run tar to read it ({e}); install tar, or unpack it first")
                    })?;
                if !listed.status.success() {
                    let why = String::from_utf8_lossy(&listed.stderr);
                    return Err(format!("{name}: not a tar archive tar can read: {}", why.trim()));
                }
                let listing = String::from_utf8_lossy(&listed.stdout);
                let members: Vec<&str> = listing.lines().filter(|l| !l.ends_with('/')).collect();
                let inner = members.first().map(|m| Packing::of(m).0);
                match inner {
                    None => return Err(format!("{name}: an empty archive")),
                    Some(p) if members.iter().any(|m| Packing::of(m).0 != p) => {
                        return Err(format!("{name}: its files are packed in different ways; unpack it first"))
                    }
                    Some(Packing::Plain | Packing::Bzip2) => {}
                    Some(other) => {
                        return Err(format!("{name}: holds {other:?}-packed files, read here only plain or .bz2"))
                    }
                }
                let mut tar = spawn("tar", Command::new("tar").arg("-xOf").arg(path).stdin(Stdio::null()))?;
                let out = tar.stdout.take().expect("piped");
                tools.push(("tar", tar));
                if inner == Some(Packing::Bzip2) {
                    let mut bzip2 = spawn("bzip2", Command::new("bzip2").arg("-dc").stdin(Stdio::from(out)))?;
                    let out = bzip2.stdout.take().expect("piped");
                    tools.push(("bzip2", bzip2));
                    Box::new(out)
                } else {
                    Box::new(out)
                }
            } else {
                Box::new(File::open(path).map_err(|e| format!("{name}: {e}"))?)
            };
        Ok(Unpacked { reader, tools, name })
    }

    /// Waits for the tools that unpacked the file and checks that each ended well (the reader
    /// read to the end first: a tool stopped early is an error here).
    pub fn finish(mut self) -> Result<(), String> {
        // What is left unread is drained, so that no tool waits on a full pipe.
        let _ = io::copy(&mut self.reader, &mut io::sink());
        for (tool, child) in std::mem::take(&mut self.tools) {
            let output = child.wait_with_output().map_err(|e| format!("{}: {tool}: {e}", self.name))?;
            if !output.status.success() {
                // The tool's first line says what went wrong (bzip2 goes on for a dozen).
                let why = String::from_utf8_lossy(&output.stderr);
                let why = why.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("no message");
                return Err(format!("{}: {tool} failed: {why}", self.name));
            }
        }
        Ok(())
    }
}

impl Read for Unpacked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl Drop for Unpacked {
    fn drop(&mut self) {
        for (_, child) in &mut self.tools {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether two paths name the same existing file (device and inode; through links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => identity(&a) == identity(&b),
        _ => false,
    }
}

#[cfg(unix)]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    // Without inodes: size and modification time, a weaker test that still catches the same file.
    let modified = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    (meta.len(), modified.map_or(0, |d| d.as_nanos() as u64))
}

/// Takes an exclusive advisory lock on the whole of `file`, held while it stays open; true when
/// another open file (another process) holds it. Where locks are not to be had (another system,
/// a file system without them) nothing is guarded and this says false.
#[cfg(unix)]
pub fn held_by_another(file: &File) -> bool {
    use std::os::unix::io::AsRawFd;
    // SAFETY: `flock` takes the descriptor of a file open for as long as the call, and flags.
    let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    taken != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EWOULDBLOCK)
}

#[cfg(not(unix))]
pub fn held_by_another(_file: &File) -> bool {
    false
}

/// Where an output lands: `path` itself, or the file a symbolic link at `path` points to (the
/// link is kept; its target is replaced). Refused when that exists and is not a regular file.
pub fn output_target(path: &Path) -> Result<PathBuf, String> {
    let shown = path.display();
    if path.as_os_str().is_empty() {
        return Err("an empty file name".to_string());
    }
    let target = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| format!("{shown}: a link to nowhere ({e})"))?
        }
        Ok(_) => path.to_path_buf(),
        Err(_) => return Ok(path.to_path_buf()),
    };
    let meta = std::fs::metadata(&target).map_err(|e| format!("{shown}: {e}"))?;
    if meta.is_dir() {
        return Err(format!("{shown}: is a directory"));
    }
    if !meta.is_file() {
        return Err(format!("{shown}: not a regular file (a device, FIFO or socket); refused"));
    }
    Ok(target)
}

/// Checks an output against the inputs it will be made from: refused when it is one of them.
pub fn check_output(output: &Path, inputs: &[&Path]) -> Result<PathBuf, String> {
    let target = output_target(output)?;
    for input in inputs {
        if same_file(&target, input) {
            return Err(format!(
                "'{}' is both an input ('{}') and the output; name another output",
                output.display(),
                input.display()
            ));
        }
    }
    Ok(target)
}

/// An output being written: a temporary file beside the target, renamed over it by
/// [`Output::commit`]; dropped without a commit, the temporary file is removed and the target
/// is untouched. Write errors name the output.
#[derive(Debug)]
pub struct Output {
    shown: String,
    target: PathBuf,
    tmp: PathBuf,
    writer: Option<io::BufWriter<File>>,
    /// The first write error, kept so the caller can tell it from an error of its input.
    failed: bool,
}

impl Output {
    /// Starts writing `path` (see [`check_output`] for what is refused).
    pub fn create(path: &Path, inputs: &[&Path]) -> Result<Output, String> {
        let target = check_output(path, inputs)?;
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = target.with_file_name(format!(".{name}.{}.partial", std::process::id()));
        let file = File::create(&tmp).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Output {
            shown: path.display().to_string(),
            target,
            tmp,
            writer: Some(io::BufWriter::new(file)),
            failed: false,
        })
    }

    /// Whether a write to this output has failed (so an error came from here, not the input).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// The output's name as the user gave it.
    pub fn name(&self) -> &str {
        &self.shown
    }

    /// Flushes and renames the temporary file over the target.
    pub fn commit(mut self) -> Result<(), String> {
        let writer = self.writer.take().expect("committed once");
        {
            // Closed before the rename.
            let file = writer.into_inner().map_err(|e| format!("{}: {}", self.shown, e.error()))?;
            file.sync_all().map_err(|e| format!("{}: {e}", self.shown))?;
        }
        std::fs::rename(&self.tmp, &self.target).map_err(|e| format!("{}: {e}", self.shown))
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.writer.as_mut().expect("not committed").write(buf);
        self.failed |= result.is_err();
        result
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.writer.as_mut().expect("not committed").flush();
        self.failed |= result.is_err();
        result
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Writes `bytes` to `path` whole (through [`Output`]), refusing an output that is one of
/// `inputs`.
pub fn write_whole(path: &Path, inputs: &[&Path], bytes: &[u8]) -> Result<(), String> {
    let mut out = Output::create(path, inputs)?;
    out.write_all(bytes).map_err(|e| format!("{}: {e}", out.name()))?;
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("corvid-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn devices_fifos_and_directories_are_not_read() {
        let d = dir("inputs");
        for path in ["/dev/zero", "/dev/urandom", "/dev/null"] {
            if Path::new(path).exists() {
                assert!(read(path, MAX_INPUT).unwrap_err().contains("not a regular file"), "{path}");
            }
        }
        assert!(read(&d, MAX_INPUT).unwrap_err().contains("directory"));
        #[cfg(unix)]
        {
            let fifo = d.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // Opening a FIFO for reading would block until a writer came: refused before.
                assert!(read(&fifo, MAX_INPUT).unwrap_err().contains("not a regular file"));
            }
        }
        let big = d.join("big");
        std::fs::write(&big, vec![b'x'; 100]).unwrap();
        assert!(read(&big, 99).unwrap_err().contains("100 bytes"));
        assert_eq!(read(&big, 100).unwrap().len(), 100);
        assert!(read(d.join("missing"), 10).is_err());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_input_is_never_the_output_whatever_its_name() {
        let d = dir("same");
        let input = d.join("data.vf");
        std::fs::write(&input, b"precious").unwrap();
        let dotted = d.join(".").join("data.vf");
        assert!(Output::create(&dotted, &[&input]).unwrap_err().contains("both an input"));
        #[cfg(unix)]
        {
            let link = d.join("link.vf");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(Output::create(&link, &[&input]).unwrap_err().contains("both an input"));
            let hard = d.join("hard.vf");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(Output::create(&hard, &[&input]).unwrap_err().contains("both an input"));
        }
        assert_eq!(std::fs::read(&input).unwrap(), b"precious");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn an_output_appears_whole_or_not_at_all() {
        let d = dir("output");
        let path = d.join("out.txt");
        std::fs::write(&path, b"old").unwrap();
        {
            let mut out = Output::create(&path, &[]).unwrap();
            out.write_all(b"half").unwrap();
            // Dropped without commit: an error or an interruption.
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1, "the temporary file is removed");
        write_whole(&path, &[], b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        // Through a link, the target is replaced and the link kept.
        #[cfg(unix)]
        {
            let link = d.join("link.txt");
            std::os::unix::fs::symlink(&path, &link).unwrap();
            write_whole(&link, &[], b"via link").unwrap();
            assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
            assert_eq!(std::fs::read(&path).unwrap(), b"via link");
        }
        assert!(write_whole(&d, &[], b"x").unwrap_err().contains("directory"));
        if Path::new("/dev/null").exists() {
            assert!(write_whole(Path::new("/dev/null"), &[], b"x").unwrap_err().contains("not a regular file"));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
