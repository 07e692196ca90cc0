//! Statements the extension runs for every page it ingests, prepared once per backend
//! (`SPI_keepplan`): parsed and analyzed once instead of on every call. Postgres re-plans a
//! kept statement itself when a table it reads changes or is analyzed, and chooses between a
//! generic and a custom plan as it does for PL/pgSQL.

use pgrx::datum::{DatumWithOid, FromDatum, IntoDatum};
use pgrx::spi::{self, OwnedPreparedStatement, SpiTupleTable};
use pgrx::{PgOid, Spi};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// A statement is kept per text and argument types.
type Key = (&'static str, Vec<u32>);

thread_local! {
    static KEPT: RefCell<HashMap<Key, Rc<OwnedPreparedStatement>>> = RefCell::new(HashMap::new());
}

/// The kept statement for `sql` with these arguments' types, prepared on first use. Taken out of
/// the map before it runs: a statement may call back into a function that runs another.
fn kept(
    client: &spi::SpiClient<'_>,
    sql: &'static str,
    args: &[DatumWithOid<'_>],
) -> spi::Result<Rc<OwnedPreparedStatement>> {
    let types: Vec<u32> = args.iter().map(|a| a.oid().to_u32()).collect();
    let key = (sql, types);
    if let Some(p) = KEPT.with(|k| k.borrow().get(&key).cloned()) {
        return Ok(p);
    }
    let oids: Vec<PgOid> = args.iter().map(|a| PgOid::from(a.oid())).collect();
    let plan = Rc::new(client.prepare_mut(sql, &oids)?.keep());
    KEPT.with(|k| k.borrow_mut().insert(key, plan.clone()));
    Ok(plan)
}

/// Run a kept statement, results ignored.
pub fn run(sql: &'static str, args: &[DatumWithOid<'_>]) -> spi::Result<()> {
    Spi::connect_mut(|client| {
        let plan = kept(client, sql, args)?;
        client.update(&*plan, None, args).map(|_| ())
    })
}

/// The first column of the first row of a kept statement.
pub fn one<A: FromDatum + IntoDatum>(
    sql: &'static str,
    args: &[DatumWithOid<'_>],
) -> spi::Result<Option<A>> {
    Spi::connect_mut(|client| {
        let plan = kept(client, sql, args)?;
        client.update(&*plan, Some(1), args)?.first().get_one()
    })
}

/// The rows of a kept statement, read by `read`.
pub fn rows<R>(
    sql: &'static str,
    args: &[DatumWithOid<'_>],
    read: impl FnOnce(SpiTupleTable<'_>) -> spi::Result<R>,
) -> spi::Result<R> {
    Spi::connect_mut(|client| {
        let plan = kept(client, sql, args)?;
        read(client.update(&*plan, None, args)?)
    })
}
