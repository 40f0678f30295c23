//! The `hive:mind/logic` component, callable with JSON.
//!
//! [`LogicRuntime`] instantiates the logic component once (in the sandbox of
//! [`crate::runtime`]) and calls its exports by name. Arguments are a JSON
//! object keyed by the WIT parameter names and results come back as JSON, in
//! the shapes of [`crate::values`]; the conversion reads the component's own
//! types, so a new export in `wit/logic.wit` is callable without any change
//! here. This is what `hive-mind logic <function> '<json>'` runs.

use std::collections::HashMap;

use serde_json::Value as Json;
use wasmtime::Store;
use wasmtime::component::types::ComponentItem;
use wasmtime::component::{
    Component, ComponentExportIndex, ComponentNamedList, Func, Instance, Lift, Lower, Type,
    TypedFunc, Val,
};

use crate::HostError;
use crate::runtime::{self, HostState};
use crate::values::{named_values, type_name, val_to_json};

/// The name of the logic interface, exported by the `pure-logic` world.
pub const LOGIC_INTERFACE: &str = "hive:mind/logic@0.2.0";

/// One exported function's signature, for listings and help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionSignature {
    /// The WIT name, e.g. `parse-date-window`.
    pub name: String,
    /// Parameter names and WIT types.
    pub params: Vec<(String, Type)>,
    /// The result type, if any.
    pub result: Option<Type>,
}

impl std::fmt::Display for FunctionSignature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|(name, ty)| format!("{name}: {}", type_name(ty)))
            .collect();
        write!(f, "{}({})", self.name, params.join(", "))?;
        if let Some(result) = &self.result {
            write!(f, " -> {}", type_name(result))?;
        }
        Ok(())
    }
}

/// An instantiated logic component.
pub struct LogicRuntime {
    store: Store<HostState>,
    instance: Instance,
    interface: ComponentExportIndex,
    signatures: Vec<FunctionSignature>,
    funcs: HashMap<String, Func>,
}

impl LogicRuntime {
    /// The embedded logic component, through the on-disk compile cache.
    pub fn new() -> Result<Self, HostError> {
        Self::from_component_bytes(
            crate::artifacts::LOGIC_COMPONENT,
            crate::cache::cache_dir().as_deref(),
        )
    }

    /// Any component exporting `hive:mind/logic` (the `pure-logic`
    /// world); `cache_dir` as in [`crate::cache::load_component`]. A component
    /// with imports beyond WASI cannot be instantiated here.
    pub fn from_component_bytes(
        wasm: &[u8],
        cache_dir: Option<&std::path::Path>,
    ) -> Result<Self, HostError> {
        let engine = runtime::engine()?;
        let component = crate::cache::load_component(&engine, "logic", wasm, cache_dir)?;
        let linker = runtime::linker(&engine)?;
        let load = |source| HostError::Load {
            name: "logic".into(),
            source,
        };
        let signatures = signatures(&engine, &component)?;
        let mut store = Store::new(&engine, HostState::sandboxed());
        let instance = linker.instantiate(&mut store, &component).map_err(load)?;
        let interface = instance
            .get_export_index(&mut store, None, LOGIC_INTERFACE)
            .ok_or_else(|| {
                load(wasmtime::Error::msg(format!(
                    "no `{LOGIC_INTERFACE}` export"
                )))
            })?;
        Ok(LogicRuntime {
            store,
            instance,
            interface,
            signatures,
            funcs: HashMap::new(),
        })
    }

    /// Every exported function, in WIT order.
    pub fn functions(&self) -> &[FunctionSignature] {
        &self.signatures
    }

    /// Call `name` with a JSON object of arguments keyed by parameter name;
    /// the result as JSON (`null` for a function without result).
    pub fn call_json(&mut self, name: &str, args: &Json) -> Result<Json, HostError> {
        let signature = self.signature(name)?.clone();
        let bad = |message: String| HostError::BadArguments {
            function: name.into(),
            message,
        };
        let object = match args {
            Json::Object(object) => object.clone(),
            Json::Null => serde_json::Map::new(),
            other => {
                return Err(bad(format!(
                    "expected a JSON object keyed by parameter name ({}), got {other}",
                    param_list(&signature)
                )));
            }
        };
        let params: Vec<Val> = named_values(&object, &signature.params, "")
            .map_err(bad)?
            .into_iter()
            .map(|(_, val)| val)
            .collect();
        let results = self.call_vals(name, &params)?;
        Ok(results.first().map_or(Json::Null, val_to_json))
    }

    /// Call `name` with component values; its results.
    pub fn call_vals(&mut self, name: &str, params: &[Val]) -> Result<Vec<Val>, HostError> {
        let result_count = usize::from(self.signature(name)?.result.is_some());
        let func = self.func(name)?;
        let mut results = vec![Val::Bool(false); result_count];
        func.call(&mut self.store, params, &mut results)
            .map_err(|source| HostError::Call {
                function: name.into(),
                source,
            })?;
        Ok(results)
    }

    /// A statically typed handle to `name` (for benchmarks and tight loops),
    /// with the store to call it in.
    pub fn typed<P, R>(
        &mut self,
        name: &str,
    ) -> Result<(TypedFunc<P, R>, &mut Store<HostState>), HostError>
    where
        P: ComponentNamedList + Lower,
        R: ComponentNamedList + Lift,
    {
        let func = self.func(name)?;
        let typed = func
            .typed::<P, R>(&self.store)
            .map_err(|source| HostError::Call {
                function: name.into(),
                source,
            })?;
        Ok((typed, &mut self.store))
    }

    /// The signature of `name`.
    pub fn signature(&self, name: &str) -> Result<&FunctionSignature, HostError> {
        self.signatures
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| HostError::UnknownFunction {
                name: name.into(),
                interface: LOGIC_INTERFACE.into(),
                available: self
                    .signatures
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    fn func(&mut self, name: &str) -> Result<Func, HostError> {
        if let Some(func) = self.funcs.get(name) {
            return Ok(*func);
        }
        self.signature(name)?;
        let missing = || HostError::Call {
            function: name.into(),
            source: wasmtime::Error::msg("the export disappeared from the instance"),
        };
        let index = self
            .instance
            .get_export_index(&mut self.store, Some(&self.interface), name)
            .ok_or_else(missing)?;
        let func = self
            .instance
            .get_func(&mut self.store, index)
            .ok_or_else(missing)?;
        self.funcs.insert(name.to_owned(), func);
        Ok(func)
    }
}

fn param_list(signature: &FunctionSignature) -> String {
    signature
        .params
        .iter()
        .map(|(name, ty)| format!("\"{name}\": {}", type_name(ty)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The signatures of the logic interface's functions, read from the
/// component's type (no instantiation needed).
fn signatures(
    engine: &wasmtime::Engine,
    component: &Component,
) -> Result<Vec<FunctionSignature>, HostError> {
    let component_type = component.component_type();
    let Some(export) = component_type.get_export(engine, LOGIC_INTERFACE) else {
        return Err(HostError::Load {
            name: "logic".into(),
            source: wasmtime::Error::msg(format!(
                "the component does not export `{LOGIC_INTERFACE}`"
            )),
        });
    };
    let ComponentItem::ComponentInstance(interface) = export.ty else {
        return Err(HostError::Load {
            name: "logic".into(),
            source: wasmtime::Error::msg(format!("`{LOGIC_INTERFACE}` is not an instance")),
        });
    };
    Ok(interface
        .exports(engine)
        .filter_map(|(name, item)| match item.ty {
            ComponentItem::ComponentFunc(func) => Some(FunctionSignature {
                name: name.to_owned(),
                params: func.params().map(|(n, t)| (n.to_owned(), t)).collect(),
                result: func.results().next(),
            }),
            _ => None,
        })
        .collect())
}
