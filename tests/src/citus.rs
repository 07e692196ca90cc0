//! A Citus cluster for the distributed tests and benchmarks (scripts/citus.sh starts one;
//! `KERAI_TEST_DATABASE_URL` names its coordinator's `postgres` database).

use crate::TestDb;

/// A new database of its own on every node of the cluster, laid out by `kerai.distribute()`
/// while empty: for checks that need a database to themselves. Dropped on every node at the end.
pub struct DistributedDb {
    db: Option<TestDb>,
    workers: Vec<String>,
}

impl DistributedDb {
    pub fn new(label: &str) -> DistributedDb {
        let home = TestDb::existing("postgres");
        let ports: Vec<i32> = home
            .client()
            .query(
                "SELECT nodeport FROM pg_dist_node
                  WHERE groupid <> 0 AND isactive AND noderole = 'primary' ORDER BY nodeport",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let db = TestDb::empty(label);
        let port: i32 = db.one("SELECT inet_server_port()");
        let on = |port: i32, database: &str| {
            let url = format!("postgresql://postgres@127.0.0.1:{port}/{database}");
            postgres::Client::connect(&url, postgres::NoTls)
                .unwrap_or_else(|e| panic!("connect to {url}: {e}"))
        };
        let extensions =
            "CREATE EXTENSION citus; CREATE EXTENSION vector; CREATE EXTENSION pg_trgm;";
        let mut workers = Vec::new();
        for p in &ports {
            on(*p, "postgres")
                .batch_execute(&format!("CREATE DATABASE {}", db.name))
                .unwrap();
            workers.push(format!("postgresql://postgres@127.0.0.1:{p}/postgres"));
            on(*p, &db.name).batch_execute(extensions).unwrap();
            // The CLI's login role on every node: made before Citus knew this database (by a
            // database without Citus), it would be on the coordinator alone.
            crate::db::cli_role(&mut on(*p, "postgres"));
        }
        let mut c = db.client();
        c.batch_execute(extensions).unwrap();
        c.execute(
            "SELECT citus_set_coordinator_host('127.0.0.1', $1)",
            &[&port],
        )
        .unwrap();
        for p in &ports {
            c.execute("SELECT citus_add_node('127.0.0.1', $1)", &[p])
                .unwrap();
        }
        // Committed before distribute(), which checks the workers over connections of its own.
        for sql in [
            "CREATE EXTENSION kerai CASCADE",
            "SELECT kerai.distribute()",
        ] {
            c.batch_execute(sql)
                .unwrap_or_else(|e| panic!("{sql} on {}: {}", db.name, crate::db::error_text(&e)));
        }
        crate::db::cli_role(&mut c);
        DistributedDb {
            db: Some(db),
            workers,
        }
    }

    pub fn db(&self) -> &TestDb {
        self.db.as_ref().expect("the database")
    }
}

impl Drop for DistributedDb {
    fn drop(&mut self) {
        let Some(db) = self.db.take() else { return };
        let name = db.name.clone();
        drop(db);
        for url in &self.workers {
            if let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls) {
                let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
            }
        }
    }
}
