fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new().capabilities_path_pattern("./src-tauri/capabilities/**/*"),
    )
    .expect("tauri-build failed");
    // Relative relocations packed (RELR, glibc 2.36+): the loader no longer pages in megabytes
    // of `.rela.dyn` at every launch to relocate the binary (BENCHMARKS.md, "Desktop app").
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu")
    {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
