//! `uniffi-bindgen`: generates the Swift sources of the `Hep` module from the built library.

fn main() {
    uniffi::uniffi_bindgen_main()
}
