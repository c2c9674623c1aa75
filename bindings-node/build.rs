//! Linker settings napi needs for a Node addon (macOS undefined-symbol lookup and the like).

fn main() {
    napi_build::setup();
}
