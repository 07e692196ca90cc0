fn main() {
    for t in std::env::args().skip(1) {
        println!(
            "{t:?} -> {:?}",
            kerai_core::html::language::detect_language(&t)
        );
    }
}
