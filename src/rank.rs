//! `kerai._fts_score`: a chunk's full-text score for `kerai.search`, from one read of its
//! `tsvector` (see `kerai_core::retrieval::rank`).

use kerai_core::retrieval::rank::chunk_score;
use pgrx::callconv::{Arg, ArgAbi};
use pgrx::pg_sys;
use pgrx::pgrx_sql_entity_graph::metadata::{
    ArgumentError, ReturnsError, ReturnsRef, SqlMappingRef, SqlTranslatable,
};
use pgrx::prelude::*;

/// A `tsvector` argument, as Postgres passes it (possibly toasted); read by [`Lexemes`].
pub(crate) struct TsVector(pg_sys::Datum);

impl FromDatum for TsVector {
    unsafe fn from_polymorphic_datum(
        datum: pg_sys::Datum,
        is_null: bool,
        _typoid: pg_sys::Oid,
    ) -> Option<Self> {
        (!is_null).then_some(TsVector(datum))
    }
}

unsafe impl<'fcx> ArgAbi<'fcx> for TsVector {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        unsafe { arg.unbox_arg_using_from_datum() }.expect("a tsvector argument")
    }
}

unsafe impl SqlTranslatable for TsVector {
    const TYPE_IDENT: &'static str = pgrx::pgrx_resolved_type!(TsVector);
    const TYPE_ORIGIN: pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin =
        pgrx::pgrx_sql_entity_graph::metadata::TypeOrigin::External;
    const ARGUMENT_SQL: Result<SqlMappingRef, ArgumentError> =
        Ok(SqlMappingRef::literal("tsvector"));
    const RETURN_SQL: Result<ReturnsRef, ReturnsError> =
        Ok(ReturnsRef::One(SqlMappingRef::literal("tsvector")));
}

/// The lexemes of a detoasted `tsvector`: Postgres's layout (tsvector.h) is a count, one
/// 4-byte entry per lexeme, sorted by lexeme bytes, then the lexemes, each followed (2-byte
/// aligned) by its position count and positions. An entry is a `WordEntry` bit field, read
/// here with shifts (bindgen's accessors walk it bit by bit): bit 0 has-positions, bits 1-11
/// the lexeme's length, bits 12-31 its offset.
struct Lexemes<'a> {
    entries: &'a [u32],
    strings: &'a [u8],
}

/// One entry, unpacked.
#[derive(Clone, Copy)]
struct Entry {
    has_positions: bool,
    len: usize,
    at: usize,
}

impl Entry {
    fn of(word: u32) -> Entry {
        Entry {
            has_positions: word & 1 == 1,
            len: ((word >> 1) & 0x7FF) as usize,
            at: (word >> 12) as usize,
        }
    }

    /// Where the position list starts: the first even offset after the lexeme.
    fn positions_at(self) -> usize {
        (self.at + self.len + 1) & !1
    }
}

impl<'a> Lexemes<'a> {
    /// Reads the vector at `datum`, detoasted into the current memory context when needed;
    /// an error (not a crash) when its layout does not hold together.
    unsafe fn read(datum: pg_sys::Datum) -> Lexemes<'a> {
        unsafe {
            let vector =
                pg_sys::pg_detoast_datum(datum.cast_mut_ptr()) as *const pg_sys::TSVectorData;
            let total = pgrx::varlena::varsize_any(vector.cast());
            let count = usize::try_from((*vector).size).unwrap_or(usize::MAX);
            let header = std::mem::size_of::<i32>() * 2;
            let strings_at = count
                .checked_mul(std::mem::size_of::<u32>())
                .and_then(|n| n.checked_add(header))
                .filter(|&n| n <= total)
                .unwrap_or_else(|| corrupt());
            // A detoasted varlena is 4-byte aligned (palloc'd, or in a tuple at the type's
            // int alignment), so its entries can be read in place.
            let base = vector.cast::<u8>();
            if !base.cast::<u32>().is_aligned() {
                corrupt();
            }
            Lexemes {
                entries: std::slice::from_raw_parts(base.add(header).cast(), count),
                strings: std::slice::from_raw_parts(base.add(strings_at), total - strings_at),
            }
        }
    }

    fn lexeme(&self, e: Entry) -> &'a [u8] {
        self.strings
            .get(e.at..e.at + e.len)
            .unwrap_or_else(|| corrupt())
    }

    /// How many positions the entry has: 0 when stored without.
    fn position_count(&self, e: Entry) -> usize {
        if !e.has_positions {
            return 0;
        }
        let at = e.positions_at();
        match self.strings.get(at..at + 2) {
            Some(b) => usize::from(u16::from_ne_bytes([b[0], b[1]])),
            None => corrupt(),
        }
    }

    /// The entry's positions (empty when stored without), as raw `WordEntryPos` values, in
    /// place (the list is 2-byte aligned: its offset is even from a 4-byte aligned start).
    fn positions(&self, e: Entry) -> &'a [u16] {
        let n = self.position_count(e);
        if n == 0 {
            return &[];
        }
        let at = e.positions_at() + 2;
        let bytes = self
            .strings
            .get(at..at + 2 * n)
            .unwrap_or_else(|| corrupt());
        if !bytes.as_ptr().cast::<u16>().is_aligned() {
            corrupt();
        }
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), n) }
    }

    /// The number of positions, a lexeme without positions counting one (`cnt_length`).
    fn length(&self) -> u32 {
        self.entries
            .iter()
            .map(|&w| self.position_count(Entry::of(w)).max(1) as u32)
            .sum()
    }

    fn find(&self, lexeme: &[u8]) -> Option<Entry> {
        self.entries
            .binary_search_by(|&w| self.lexeme(Entry::of(w)).cmp(lexeme))
            .ok()
            .map(|i| Entry::of(self.entries[i]))
    }
}

fn corrupt() -> ! {
    error!("kerai._fts_score: the tsvector is corrupt (its lexemes run past its end); REINDEX or recompute the column")
}

/// The full-text score of a chunk: the sum over `lexemes` of `idfs[i] * ts_rank(fts, lexemes[i],
/// 1)`, equal to the bit to that SQL, reading `fts` once.
#[pg_extern(immutable, parallel_safe, strict)]
pub(crate) fn _fts_score(fts: TsVector, lexemes: Array<'_, &str>, idfs: Array<'_, f64>) -> f64 {
    if lexemes.len() != idfs.len() {
        error!(
            "kerai._fts_score: {} lexemes but {} weights; pass one weight per lexeme",
            lexemes.len(),
            idfs.len()
        );
    }
    let vector = unsafe { Lexemes::read(fts.0) };
    if vector.entries.is_empty() {
        return 0.0;
    }
    let found: Vec<Option<&[u16]>> = lexemes
        .iter()
        .map(|l| {
            l.and_then(|l| vector.find(l.as_bytes()))
                .map(|e| vector.positions(e))
        })
        .collect();
    if found.iter().all(Option::is_none) {
        return 0.0;
    }
    let doc_len = vector.length();
    chunk_score(
        idfs.iter()
            .zip(found)
            .map(|(idf, p)| (idf.unwrap_or(0.0), p)),
        doc_len,
    )
}

/// The share of the rows of `rel` whose `tsvector` column `col` holds each of `lexemes`, as
/// ANALYZE estimated it (the column's most common elements; a lexeme not among them is taken
/// as half as frequent as the rarest listed). NULL when the column has no such statistics yet
/// (or is not a `tsvector`), or when the caller may not read them in `pg_stats` (no SELECT on
/// the column, or row-level security applies to the caller). Reads the statistics cache: no
/// query, no array parsing.
#[pg_extern(stable, parallel_safe, strict)]
pub(crate) fn _lexeme_frequencies(
    rel: pg_sys::Oid,
    col: &str,
    lexemes: Vec<Option<String>>,
) -> Option<Vec<Option<f64>>> {
    let name = std::ffi::CString::new(col).ok()?;
    let attnum = unsafe { pg_sys::get_attnum(rel, name.as_ptr()) };
    if attnum <= 0 || !unsafe { stats_readable(rel, attnum) } {
        return None;
    }
    // Inheritance (or partition) tree statistics first, as pg_stats lists them.
    [true, false]
        .into_iter()
        .find_map(|inherited| unsafe { frequencies(rel, attnum, inherited, &lexemes) })
}

/// What the pg_stats view checks before it shows a column's statistics.
unsafe fn stats_readable(rel: pg_sys::Oid, attnum: i16) -> bool {
    unsafe {
        let user = pg_sys::GetUserId();
        let select = pg_sys::AclMode::from(pg_sys::ACL_SELECT);
        let privileged = pg_sys::pg_class_aclcheck(rel, user, select)
            == pg_sys::AclResult::ACLCHECK_OK
            || pg_sys::pg_attribute_aclcheck(rel, attnum, user, select)
                == pg_sys::AclResult::ACLCHECK_OK;
        privileged
            && pg_sys::check_enable_rls(rel, pg_sys::InvalidOid, true)
                != pg_sys::CheckEnableRlsResult::RLS_ENABLED as i32
    }
}

/// The lexemes' frequencies from one statistics row (NULL when there is none).
unsafe fn frequencies(
    rel: pg_sys::Oid,
    attnum: i16,
    inherited: bool,
    lexemes: &[Option<String>],
) -> Option<Vec<Option<f64>>> {
    unsafe {
        let tuple = pg_sys::SearchSysCache3(
            pg_sys::SysCacheIdentifier::STATRELATTINH as i32,
            pg_sys::Datum::from(rel),
            pg_sys::Datum::from(attnum),
            pg_sys::Datum::from(inherited),
        );
        if tuple.is_null() {
            return None;
        }
        let mut slot = pg_sys::AttStatsSlot::default();
        let flags = (pg_sys::ATTSTATSSLOT_VALUES | pg_sys::ATTSTATSSLOT_NUMBERS) as i32;
        let found = pg_sys::get_attstatsslot(
            &mut slot,
            tuple,
            pg_sys::STATISTIC_KIND_MCELEM as i32,
            pg_sys::InvalidOid,
            flags,
        );
        // A tsvector column's elements are text; another column's (an array's) are not read.
        let usable = found
            && slot.valuetype == pg_sys::TEXTOID
            && slot.nvalues > 0
            && slot.nnumbers > slot.nvalues;
        let out = usable.then(|| {
            let values = std::slice::from_raw_parts(slot.values, slot.nvalues as usize);
            let numbers = std::slice::from_raw_parts(slot.numbers, slot.nnumbers as usize);
            // After one frequency per element come the least and the greatest of them.
            let unlisted = f64::from(numbers[values.len()]) / 2.0;
            let mut out: Vec<Option<f64>> = lexemes
                .iter()
                .map(|l| l.as_ref().map(|_| unlisted))
                .collect();
            for (value, &freq) in values.iter().zip(numbers) {
                let element = pgrx::varlena::varlena_to_byte_slice(value.cast_mut_ptr());
                for (slot, lexeme) in out.iter_mut().zip(lexemes) {
                    if lexeme.as_deref().map(str::as_bytes) == Some(element) {
                        *slot = Some(f64::from(freq));
                    }
                }
            }
            out
        });
        if found {
            pg_sys::free_attstatsslot(&mut slot);
        }
        pg_sys::ReleaseSysCache(tuple);
        out
    }
}
