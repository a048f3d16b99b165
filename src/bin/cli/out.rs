//! Standard output that ends quietly when its reader closes the pipe (`| head`), instead of
//! panicking on the broken pipe as `println!` does.

use std::io::Write;

/// Writes to standard output; a closed pipe ends the program with status 0, as it ends `cat`.
pub fn write(args: std::fmt::Arguments) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// `println!` for the CLI's output (see [`write`]).
macro_rules! outln {
    ($($arg:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($arg)*))) };
}
pub(crate) use outln;
