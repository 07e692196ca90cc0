//! Show how a markdown file is chunked:
//! `cargo run -p kerai-core --example chunk_markdown -- FILE.md [TARGET] [OVERLAP] [section|paragraph|length]`
//! (tokens counted with the approximate counter).

use kerai_core::retrieval::chunk::{
    approx_token_count, blocks_from_markdown, chunk_document, ChunkOptions, ChunkStrategy,
};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        return Err("usage: chunk_markdown FILE.md [TARGET] [OVERLAP] [STRATEGY]".into());
    };
    let md = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let number = |i: usize, default: usize| -> Result<usize, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.parse()
                .map_err(|_| format!("{s} is not a number of tokens"))
        })
    };
    let opts = ChunkOptions {
        target_tokens: number(1, 512)?,
        overlap_tokens: number(2, 64)?,
        strategy: args
            .get(3)
            .map_or(Ok(ChunkStrategy::Section), |s| ChunkStrategy::parse(s))?,
    };
    opts.check()?;
    let blocks = blocks_from_markdown(&md);
    for c in chunk_document(&blocks, &opts, &approx_token_count) {
        println!(
            "=== chunk {}/{} {} tokens={} overlap_bytes={} blocks {}..={} {:?}\n{}\n",
            c.index + 1,
            c.total,
            c.strategy,
            c.token_count,
            c.overlap_bytes,
            c.start_block,
            c.end_block,
            c.heading_path,
            c.text
        );
    }
    Ok(())
}
