//! `docs/reference/cli.md`, generated from the clap definitions in `args.rs`: every command's
//! long help, so the manual cannot drift from the binary. The test below fails when the file
//! is stale; `KERAI_WRITE_DOCS=1 cargo test -p kerai-fetch cli_reference` rewrites it.

use clap::CommandFactory;

/// The CLI reference as markdown.
pub fn markdown() -> String {
    let mut root = crate::args::Cli::command()
        .term_width(100)
        .max_term_width(100);
    root.build();
    let mut out = String::from(
        "# CLI reference\n\n\
         Generated from `kerai --help` and each command's `--help` \
         (`crates/kerai-fetch/src/cli_reference.rs`); do not edit by hand.\n",
    );
    section(&mut out, &mut root, "kerai");
    out
}

fn section(out: &mut String, cmd: &mut clap::Command, path: &str) {
    let help = cmd.render_long_help().to_string();
    out.push_str(&format!("\n## `{path}`\n\n```text\n"));
    for line in help.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str("```\n");
    let names: Vec<String> = cmd
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        if let Some(sub) = cmd.find_subcommand_mut(&name) {
            section(out, sub, &format!("{path} {name}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn docs_reference_cli_md_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/reference/cli.md");
        let want = super::markdown();
        if std::env::var_os("KERAI_WRITE_DOCS").is_some() {
            std::fs::write(&path, &want).expect("write docs/reference/cli.md");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/reference/cli.md is stale: run `make docs` (or `KERAI_WRITE_DOCS=1 cargo test -p kerai-fetch cli_reference`) and commit it"
        );
    }
}
