//! The packer: walks the section tree (or the blocks, or the sentences) and fills chunks.
//!
//! Sizes are tracked as upper-bound estimates (pieces' own counts plus one token per join);
//! only when an estimate says "too big" is the exact count of the candidate text taken, so a
//! document costs about one count per block or sentence plus one per chunk.

use super::cut::{cut_to_limit, tail_words, CountTokens};
use super::sections::{self, Item};
use super::sentences::sentence_ranges;
use super::{Chunk, ChunkInput, ChunkOptions, ChunkStrategy};
use crate::markdown::NodeKind;
use sha2::{Digest, Sha256};
use std::ops::Range;

/// A contiguous part of one block's text.
#[derive(Debug, Clone)]
struct Piece {
    block: usize,
    range: Range<usize>,
    tokens: usize,
    /// The piece is the whole block.
    whole: bool,
    /// The piece is a heading block (it opens a section).
    heading: bool,
    /// The piece was placed as part of a whole section.
    in_section: bool,
}

struct Built {
    overlap: Vec<Piece>,
    own: Vec<Piece>,
}

struct Packer<'a> {
    blocks: &'a [ChunkInput],
    count: CountTokens<'a>,
    target: usize,
    overlap: usize,
    strategy: ChunkStrategy,
    /// Largest piece a chunk with a full overlap still holds.
    max_piece: usize,
    block_tokens: Vec<usize>,
    cur: Vec<Piece>,
    cur_overlap: Vec<Piece>,
    /// Upper-bound estimate (or exact count) of the current chunk's text.
    cur_tokens: usize,
    carry: Vec<Piece>,
    carry_tokens: usize,
    pending: Vec<Piece>,
    out: Vec<Built>,
}

pub(super) fn pack(blocks: &[ChunkInput], opts: &ChunkOptions, count: CountTokens) -> Vec<Chunk> {
    let block_tokens = blocks
        .iter()
        .map(|b| {
            crate::interrupt::check();
            let t = b.text.trim();
            if t.is_empty() {
                0
            } else {
                count(t)
            }
        })
        .collect();
    let mut p = Packer {
        blocks,
        count,
        target: opts.target_tokens,
        overlap: opts.overlap_tokens,
        strategy: opts.strategy,
        max_piece: opts.target_tokens - opts.overlap_tokens - 1,
        block_tokens,
        cur: Vec::new(),
        cur_overlap: Vec::new(),
        cur_tokens: 0,
        carry: Vec::new(),
        carry_tokens: 0,
        pending: Vec::new(),
        out: Vec::new(),
    };
    match opts.strategy {
        ChunkStrategy::Section => {
            let tree = sections::build(blocks, &p.block_tokens);
            p.place_section(&tree, 0);
        }
        ChunkStrategy::Paragraph | ChunkStrategy::Length => {
            for (i, b) in blocks.iter().enumerate() {
                if !b.text.trim().is_empty() {
                    p.place_block(i);
                }
            }
        }
    }
    let pending = std::mem::take(&mut p.pending);
    if !pending.is_empty() {
        p.push_group(pending);
    }
    p.flush();
    p.finish()
}

impl Packer<'_> {
    fn trimmed_range(&self, i: usize) -> Range<usize> {
        let t = &self.blocks[i].text;
        let start = t.len() - t.trim_start().len();
        start..t.trim_end().len()
    }

    fn whole_piece(&self, i: usize) -> Piece {
        Piece {
            block: i,
            range: self.trimmed_range(i),
            tokens: self.block_tokens[i],
            whole: true,
            heading: self.blocks[i].kind == NodeKind::Heading,
            in_section: false,
        }
    }

    /// Estimated tokens of pieces joined together.
    fn est(pieces: &[Piece]) -> usize {
        pieces.iter().map(|p| p.tokens).sum::<usize>() + pieces.len().saturating_sub(1)
    }

    fn place_section(&mut self, tree: &[sections::Section], s: usize) {
        let sec = &tree[s];
        let pending = Self::est(&self.pending) + usize::from(!self.pending.is_empty());
        // A section that opens with its heading starts a chunk without overlap.
        let room = if sec.has_heading && self.pending.is_empty() {
            self.target
        } else {
            self.max_piece
        };
        if sec.tokens + pending <= room {
            let mut group = std::mem::take(&mut self.pending);
            self.collect_whole(tree, s, &mut group);
            self.push_group(group);
            return;
        }
        // A section that will not fit starts a new chunk when the current one is already
        // half full, so that its heading opens a chunk.
        if sec.has_heading && self.pending.is_empty() && self.cur_tokens * 2 >= self.target {
            self.flush();
        }
        for item in sec.items.clone() {
            match item {
                Item::Block(i) => self.place_block(i),
                Item::Section(c) => self.place_section(tree, c),
            }
        }
    }

    fn collect_whole(&self, tree: &[sections::Section], s: usize, out: &mut Vec<Piece>) {
        for item in &tree[s].items {
            match *item {
                Item::Block(i) => {
                    let mut p = self.whole_piece(i);
                    p.in_section = true;
                    out.push(p);
                }
                Item::Section(c) => self.collect_whole(tree, c, out),
            }
        }
    }

    fn place_block(&mut self, i: usize) {
        let heading = self.blocks[i].kind == NodeKind::Heading;
        if heading
            && self.strategy != ChunkStrategy::Length
            && self.block_tokens[i] <= self.max_piece / 2
        {
            // A heading waits for the content it introduces.
            let p = self.whole_piece(i);
            self.pending.push(p);
            return;
        }
        let pending = Self::est(&self.pending) + usize::from(!self.pending.is_empty());
        let limit = self
            .max_piece
            .saturating_sub(pending)
            .max(self.max_piece / 2);
        let pieces = self.split_block(i, limit);
        for (k, p) in pieces.into_iter().enumerate() {
            if k == 0 {
                let mut group = std::mem::take(&mut self.pending);
                group.push(p);
                self.push_group(group);
            } else {
                self.push_group(vec![p]);
            }
        }
    }

    /// The block whole if it fits `limit` (and the strategy is not `Length`), else its
    /// sentences (lines for code, tables and HTML), over-long ones cut at words.
    fn split_block(&self, i: usize, limit: usize) -> Vec<Piece> {
        if self.block_tokens[i] <= limit && self.strategy != ChunkStrategy::Length {
            return vec![self.whole_piece(i)];
        }
        let text = &self.blocks[i].text;
        let range = self.trimmed_range(i);
        let units: Vec<Range<usize>> = match self.blocks[i].kind {
            NodeKind::Code | NodeKind::Table | NodeKind::Html => line_ranges(text, range),
            _ => sentence_ranges(&text[range.clone()])
                .into_iter()
                .map(|r| r.start + range.start..r.end + range.start)
                .collect(),
        };
        let mut out = Vec::new();
        let heading = self.blocks[i].kind == NodeKind::Heading;
        for u in units {
            crate::interrupt::check();
            let tokens = (self.count)(&text[u.clone()]);
            let parts = if tokens <= limit {
                vec![(u, tokens)]
            } else {
                cut_to_limit(text, u, limit, self.count)
                    .into_iter()
                    .map(|r| {
                        let t = (self.count)(&text[r.clone()]);
                        (r, t)
                    })
                    .collect()
            };
            for (r, tokens) in parts {
                out.push(Piece {
                    block: i,
                    range: r,
                    tokens,
                    whole: false,
                    heading,
                    in_section: false,
                });
            }
        }
        if out.len() == 1 {
            out[0].whole = out[0].range == self.trimmed_range(i);
        }
        out
    }

    /// Add pieces that belong together to the current chunk, or start a new one with them.
    fn push_group(&mut self, group: Vec<Piece>) {
        crate::interrupt::check();
        if group.is_empty() {
            return;
        }
        let g = Self::est(&group);
        if !self.cur.is_empty() {
            let est = self.cur_tokens + 1 + g;
            if est <= self.target {
                self.cur.extend(group);
                self.cur_tokens = est;
                return;
            }
            let exact = self.exact_with(&group);
            if exact <= self.target {
                self.cur.extend(group);
                self.cur_tokens = exact;
                return;
            }
            self.flush();
        }
        self.start(group, g);
    }

    fn start(&mut self, group: Vec<Piece>, g: usize) {
        let carry = std::mem::take(&mut self.carry);
        let carry_tokens = self.carry_tokens;
        // A chunk that opens a section (with its heading) repeats nothing of the previous one.
        let opens_section = self.strategy != ChunkStrategy::Length && group[0].heading;
        let use_carry = !carry.is_empty() && !opens_section;
        self.cur = group;
        self.cur_overlap = Vec::new();
        self.cur_tokens = g;
        if use_carry {
            self.cur_overlap = carry;
            let est = carry_tokens + 1 + g;
            if est <= self.target {
                self.cur_tokens = est;
            } else {
                let exact = self.exact_with(&[]);
                if exact <= self.target {
                    self.cur_tokens = exact;
                } else {
                    self.cur_overlap.clear();
                }
            }
        }
    }

    /// Exact tokens of the current chunk with `more` appended.
    fn exact_with(&self, more: &[Piece]) -> usize {
        let mut all: Vec<Piece> = self.cur_overlap.clone();
        all.extend(self.cur.iter().cloned());
        all.extend(more.iter().cloned());
        (self.count)(&self.render(&all))
    }

    /// Close the current chunk and work out the overlap for the next.
    fn flush(&mut self) {
        if self.cur.is_empty() {
            return;
        }
        let own = std::mem::take(&mut self.cur);
        let overlap = std::mem::take(&mut self.cur_overlap);
        self.carry = self.tail(&own);
        self.carry_tokens = if self.carry.is_empty() {
            0
        } else {
            (self.count)(&self.render(&self.carry))
        };
        self.cur_tokens = 0;
        self.out.push(Built { overlap, own });
    }

    /// The last whole sentences of `own` within the overlap budget, or its last words when
    /// the last sentence alone is longer. Headings are never repeated.
    fn tail(&self, own: &[Piece]) -> Vec<Piece> {
        if self.overlap == 0 {
            return Vec::new();
        }
        let mut taken: Vec<Piece> = Vec::new();
        let mut used = 0;
        'pieces: for p in own.iter().rev() {
            if p.heading {
                break;
            }
            let text = &self.blocks[p.block].text;
            let sents: Vec<Range<usize>> = match self.blocks[p.block].kind {
                NodeKind::Code | NodeKind::Table | NodeKind::Html => {
                    line_ranges(text, p.range.clone())
                }
                _ => sentence_ranges(&text[p.range.clone()])
                    .into_iter()
                    .map(|r| r.start + p.range.start..r.end + p.range.start)
                    .collect(),
            };
            for s in sents.into_iter().rev() {
                let t = (self.count)(&text[s.clone()]);
                let join = usize::from(!taken.is_empty());
                if used + join + t > self.overlap {
                    if taken.is_empty() {
                        if let Some(r) = tail_words(text, s, self.overlap, self.count) {
                            let tokens = (self.count)(&text[r.clone()]);
                            taken.push(Piece {
                                block: p.block,
                                range: r,
                                tokens,
                                whole: false,
                                heading: false,
                                in_section: false,
                            });
                        }
                    }
                    break 'pieces;
                }
                used += join + t;
                taken.push(Piece {
                    block: p.block,
                    range: s,
                    tokens: t,
                    whole: false,
                    heading: false,
                    in_section: false,
                });
            }
        }
        taken.reverse();
        taken
    }

    /// The text of pieces in order: runs from one block are one slice of it (its own
    /// spacing kept), runs are separated by a blank line.
    fn render(&self, pieces: &[Piece]) -> String {
        let mut out = String::new();
        let mut k = 0;
        while k < pieces.len() {
            let block = pieces[k].block;
            let start = pieces[k].range.start;
            let mut end = pieces[k].range.end;
            let mut j = k + 1;
            while j < pieces.len() && pieces[j].block == block && pieces[j].range.start >= end {
                end = pieces[j].range.end;
                j += 1;
            }
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&self.blocks[block].text[start..end]);
            k = j;
        }
        out
    }

    fn finish(self) -> Vec<Chunk> {
        let total = self.out.len();
        let mut chunks = Vec::with_capacity(total);
        for (index, b) in self.out.iter().enumerate() {
            crate::interrupt::check();
            let mut all = b.overlap.clone();
            all.extend(b.own.iter().cloned());
            let text = self.render(&all);
            let overlap_bytes = if b.overlap.is_empty() {
                0
            } else {
                let own_text = self.render(&b.own);
                text.len() - own_text.len()
            };
            let first = b.own[0].block;
            let last = b.own[b.own.len() - 1].block;
            let strategy = if b.own.iter().any(|p| !p.whole) {
                "length"
            } else if self.strategy == ChunkStrategy::Section && b.own.iter().all(|p| p.in_section)
            {
                "section"
            } else {
                "paragraph"
            };
            chunks.push(Chunk {
                index,
                total,
                token_count: (self.count)(&text),
                content_hash: hex::encode(Sha256::digest(text.as_bytes())),
                text,
                heading_path: self.blocks[first].heading_path.clone(),
                strategy,
                start_block: first,
                end_block: last,
                overlap_bytes,
            });
        }
        chunks
    }
}

/// Byte ranges of the non-blank lines of `text[range]`.
fn line_ranges(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let end = start + line.len();
        let body = line.trim_end();
        if !body.trim().is_empty() {
            out.push(start..start + body.len());
        }
        start = end;
    }
    out
}
