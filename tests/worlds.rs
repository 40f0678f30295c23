//! The built components have the shapes the WIT worlds promise: the logic
//! component imports nothing of hive-mind's beyond types, the engine imports
//! the five capabilities (`sqlite`, `embedder`, `reranker`, `llm`, `fetch`)
//! and exports memory, admin and harvest (the pure functions are the logic
//! component's alone).

use hive_mind_runtime::{artifacts, runtime};
use wasmtime::component::Component;
use wasmtime::component::types::ComponentItem;

fn names(component: &Component, engine: &wasmtime::Engine, imports: bool) -> Vec<String> {
    let ty = component.component_type();
    let items: Vec<(String, ComponentItem)> = if imports {
        ty.imports(engine)
            .map(|(n, e)| (n.to_owned(), e.ty))
            .collect()
    } else {
        ty.exports(engine)
            .map(|(n, e)| (n.to_owned(), e.ty))
            .collect()
    };
    items
        .into_iter()
        .map(|(name, _)| name)
        .filter(|n| n.starts_with("hive:"))
        .collect()
}

/// The component through the tests' compile cache (the other tests compile
/// the same bytes; the types are the same however it was loaded).
fn load(engine: &wasmtime::Engine, name: &str, wasm: &[u8]) -> Component {
    hive_mind_runtime::cache::load_component(engine, name, wasm, Some(&crate::support::cache_dir()))
        .unwrap()
}

#[test]
fn the_logic_world_needs_nothing_from_a_host() {
    let engine = runtime::engine().unwrap();
    let logic = load(&engine, "logic", artifacts::LOGIC_COMPONENT);
    let imports = names(&logic, &engine, true);
    // Only the types-only interface (which needs no functions from a host).
    assert!(
        imports.iter().all(|n| n == "hive:mind/types@0.2.0"),
        "{imports:?}"
    );
    assert_eq!(names(&logic, &engine, false), ["hive:mind/logic@0.2.0"]);
    // Every non-hive import is WASI, which the standard library uses.
    let ty = logic.component_type();
    for (name, _) in ty.imports(&engine) {
        assert!(
            name.starts_with("hive:mind/types") || name.starts_with("wasi:"),
            "unexpected import {name}"
        );
    }
}

#[test]
fn the_engine_world_imports_the_capabilities_and_exports_the_api() {
    // The engine component as hosts run it: with epoch checks compiled in
    // (the configuration `hive-mind components --compile` fills the tests'
    // cache with; another would compile it again, most of a minute).
    let engine = runtime::engine_for(&hive_mind_runtime::limits::Limits::default()).unwrap();
    let component = load(&engine, "engine", artifacts::ENGINE_COMPONENT);
    let mut imports = names(&component, &engine, true);
    imports.sort();
    // A component imports only the interfaces its code calls (wit-component
    // drops the unused ones), so the engine's imports grow with its
    // pipelines; they must always be among the world's five capabilities.
    let capabilities = [
        "hive:mind/embedder@0.2.0",
        "hive:mind/fetch@0.2.0",
        "hive:mind/llm@0.2.0",
        "hive:mind/reranker@0.2.0",
        "hive:mind/sqlite@0.2.0",
        "hive:mind/types@0.2.0",
    ];
    for import in &imports {
        assert!(capabilities.contains(&import.as_str()), "{import}");
    }
    // save-memory embeds and stores (the required capabilities); harvest
    // asks the language model and fetches URLs.
    for needed in [
        "hive:mind/embedder@0.2.0",
        "hive:mind/sqlite@0.2.0",
        "hive:mind/llm@0.2.0",
        "hive:mind/fetch@0.2.0",
    ] {
        assert!(imports.iter().any(|i| i == needed), "{imports:?}");
    }
    let mut exports = names(&component, &engine, false);
    exports.sort();
    assert_eq!(
        exports,
        [
            "hive:mind/admin@0.2.0",
            "hive:mind/harvest@0.2.0",
            "hive:mind/memory@0.2.0",
            "hive:mind/review@0.2.0",
            "hive:mind/wiki@0.2.0"
        ]
    );
    // Every WASI import is one the host's sandbox links, and the host's
    // linker supplies all five capabilities: instantiation succeeds.
    for (name, _) in component.component_type().imports(&engine) {
        assert!(
            name.starts_with("hive:mind/") || name.starts_with("wasi:"),
            "unexpected import {name}"
        );
    }
    let linker = hive_mind_runtime::engine::linker(&engine).unwrap();
    linker.instantiate_pre(&component).unwrap();
}
