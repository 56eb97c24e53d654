//! Corvid's Polyglot reader against python-chess's on a book made by Debian's `polyglot
//! make-book` (see `tests/data/polyglot/README.md`): the same moves with the same weights in
//! 400 positions, in and out of the book; and the UCI options that use it.

use corvid::book::Book;
use corvid::Position;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/polyglot");

#[test]
fn the_book_gives_what_python_chess_reads_in_it() {
    let book = Book::load(&format!("{DATA}/book.bin")).unwrap();
    let expected = std::fs::read_to_string(format!("{DATA}/expected.txt")).unwrap();
    let (mut positions, mut in_book) = (0, 0);
    for line in expected.lines() {
        let (fen, entries) = line.split_once(" ; ").unwrap();
        let pos = Position::from_fen(fen).unwrap();
        let mut want: Vec<(String, u16)> = entries
            .split_whitespace()
            .map(|e| {
                let (m, w) = e.split_once(':').unwrap();
                (m.to_string(), w.parse().unwrap())
            })
            .collect();
        let mut got: Vec<(String, u16)> =
            book.moves(&pos).into_iter().map(|(m, w)| (m.to_uci(false).to_string(), w)).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{fen}");
        positions += 1;
        in_book += usize::from(!want.is_empty());
    }
    assert_eq!(positions, 400);
    assert!(in_book > 200, "{in_book} positions in the book");
}

#[test]
fn own_book_plays_from_the_book_and_a_bad_file_is_no_book() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // Sends `input`, reads until `bestmove`, then closes the input (so no search is cut short).
    let run = |input: &str| {
        use std::io::BufRead;
        let mut child = Command::new(env!("CARGO_BIN_EXE_corvid"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.flush().unwrap();
        let mut out = String::new();
        for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
            let line = line.unwrap();
            out.push_str(&line);
            out.push('\n');
            if line.starts_with("bestmove") {
                break;
            }
        }
        drop(stdin);
        child.wait().unwrap();
        out
    };
    // All of the start position's book moves (the reader is checked against python-chess above).
    let book = Book::load(&format!("{DATA}/book.bin")).unwrap();
    let book_moves: Vec<String> =
        book.moves(&Position::startpos()).into_iter().map(|(m, _)| m.to_uci(false).to_string()).collect();
    assert_eq!(book_moves.len(), 15);
    let out = run(&format!(
        "setoption name BookFile value {DATA}/book.bin\nsetoption name OwnBook value true\nposition startpos\ngo wtime 1000 btime 1000\n"
    ));
    assert!(out.contains("info string BookFile:"), "{out}");
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove ")).unwrap();
    assert!(out.contains("info string book move") && book_moves.iter().any(|m| best.starts_with(m)), "{out}");
    // In analysis (`UCI_AnalyseMode`, as GUIs set it for their analysis boards) the position is
    // searched, book or not.
    let out = run(&format!(
        "setoption name BookFile value {DATA}/book.bin\nsetoption name OwnBook value true\nsetoption name UCI_AnalyseMode value true\nposition startpos\ngo depth 3\n"
    ));
    assert!(!out.contains("book move") && out.contains("info depth 3"), "{out}");
    // Out of the book, a search.
    let out = run(&format!(
        "setoption name BookFile value {DATA}/book.bin\nsetoption name OwnBook value true\nposition fen 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\ngo depth 3\n"
    ));
    assert!(!out.contains("book move") && out.contains("info depth 3"), "{out}");
    // A missing or broken file: a message, no book, and the engine searches.
    let dir = std::env::temp_dir().join(format!("corvid-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short.bin");
    std::fs::write(&short, [7u8; 17]).unwrap();
    let unsorted = dir.join("unsorted.bin");
    let mut bytes = [0u8; 32];
    bytes[0] = 9;
    std::fs::write(&unsorted, bytes).unwrap();
    let bad_files = ["/nonexistent/book.bin".to_string(), short.display().to_string(), unsorted.display().to_string()];
    for bad in &bad_files {
        let out = run(&format!(
            "setoption name BookFile value {bad}\nsetoption name OwnBook value true\nposition startpos\ngo depth 2\n"
        ));
        assert!(out.contains("info string error: BookFile") && out.contains("no book"), "{out}");
        assert!(!out.contains("book move") && out.contains("bestmove"), "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
