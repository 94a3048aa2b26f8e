fn main() {
    // Only the addon build needs Node's link settings; plain `cargo test` does not.
    if std::env::var_os("CARGO_FEATURE_NAPI").is_some() {
        napi_build::setup();
    }
}
