//! Write the man pages: `pbemd.1` and one per subcommand (`pbemd-gm-queue.1` …),
//! generated from the command line's definitions.
//!
//! ```sh
//! cargo run --example manpages -- target/man
//! man -l target/man/pbemd-init.1
//! ```

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "target/man".into());
    let pages = pbemd::cli::reference::write_man_pages(&dir)?;
    println!("{} man pages in {}", pages.len(), dir.display());
    Ok(())
}
