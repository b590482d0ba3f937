#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tonindex::fuzzing::hash(data));
