//! The keys `pbemd.yaml` accepts, read from the serde definitions themselves.
//!
//! [`key_paths`] runs the derived `Deserialize` of the whole file against a tracing
//! deserializer: each struct it is asked for hands it every one of its fields, and
//! each field's value is traced the same way one level down. So a key added to, or
//! taken from, a `Raw*` struct shows here without a list kept by hand, and the
//! configuration reference (`docs/reference/config.md`) is tested against it.
//!
//! Owns nothing else: it reads no file and validates nothing.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// Every key of `pbemd.yaml` that holds a value (not a block of keys), as a dotted path
/// (`game.name`, `inbound.imap.host`, `database`), in the order the definitions give.
pub fn key_paths() -> Vec<String> {
    key_values().into_iter().map(|(k, _)| k).collect()
}

/// Like [`key_paths`], each with the values it allows when it is one of a fixed set
/// (`sender_check`: `from-only`, `dkim`, …), else an empty list.
pub fn key_values() -> Vec<(String, Vec<&'static str>)> {
    let mut trace = Trace::default();
    // The tracer hands out every field and a stand-in value for each field; a type
    // that refuses a stand-in value stops the walk with an error, so the error is the
    // test's business (an incomplete list fails the reference's tests).
    if let Err(e) = super::RawConfig::deserialize(Tracer {
        prefix: String::new(),
        trace: &mut trace,
    }) {
        panic!("cannot trace the configuration's keys: {e}");
    }
    let Trace { keys, blocks } = trace;
    keys.into_iter()
        .filter(|(k, _)| !blocks.contains(k))
        .collect()
}

#[derive(Default)]
struct Trace {
    /// Every key met, with the variants of an enum value.
    keys: Vec<(String, Vec<&'static str>)>,
    /// The keys whose value is a struct (a block such as `inbound.imap`).
    blocks: Vec<String>,
}

/// A deserializer that answers every request with a stand-in value and records the
/// struct fields it is asked for under `prefix` (the path of the value being read).
struct Tracer<'a> {
    prefix: String,
    trace: &'a mut Trace,
}

#[derive(Debug)]
struct TraceError(String);

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceError {}

impl de::Error for TraceError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        TraceError(msg.to_string())
    }
}

macro_rules! stand_in {
    ($($method:ident => $visit:ident($value:expr)),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
            visitor.$visit($value)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Tracer<'_> {
    type Error = TraceError;

    stand_in! {
        deserialize_bool => visit_bool(false),
        deserialize_i8 => visit_i64(0),
        deserialize_i16 => visit_i64(0),
        deserialize_i32 => visit_i64(0),
        deserialize_i64 => visit_i64(0),
        deserialize_u8 => visit_u64(0),
        deserialize_u16 => visit_u64(0),
        deserialize_u32 => visit_u64(0),
        deserialize_u64 => visit_u64(0),
        deserialize_f32 => visit_f64(0.0),
        deserialize_f64 => visit_f64(0.0),
        deserialize_char => visit_char('x'),
        deserialize_str => visit_str(""),
        deserialize_string => visit_str(""),
        deserialize_bytes => visit_bytes(&[]),
        deserialize_byte_buf => visit_bytes(&[]),
        deserialize_identifier => visit_str(""),
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, TraceError> {
        Err(TraceError(format!(
            "`{}` has a self-describing type; the tracer cannot guess it",
            self.prefix.trim_end_matches('.')
        )))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_some(self)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_seq(Empty)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_seq(Empty)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        visitor.visit_seq(Empty)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, TraceError> {
        visitor.visit_map(Empty)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        if !self.prefix.is_empty() {
            let block = self.prefix.trim_end_matches('.').to_string();
            self.trace.blocks.push(block);
        }
        visitor.visit_map(Fields {
            prefix: self.prefix,
            fields: fields.iter(),
            current: None,
            trace: self.trace,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceError> {
        let key = self.prefix.trim_end_matches('.');
        if let Some(entry) = self.trace.keys.iter_mut().rev().find(|(k, _)| k == key) {
            entry.1 = variants.to_vec();
        }
        let first = variants.first().copied().unwrap_or_default();
        visitor.visit_enum(first.into_deserializer())
    }
}

/// An empty sequence or map: a list (`trusted_proxies`) is traced as no items.
struct Empty;

impl<'de> SeqAccess<'de> for Empty {
    type Error = TraceError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        _seed: T,
    ) -> Result<Option<T::Value>, TraceError> {
        Ok(None)
    }
}

impl<'de> MapAccess<'de> for Empty {
    type Error = TraceError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        _seed: K,
    ) -> Result<Option<K::Value>, TraceError> {
        Ok(None)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        _seed: T,
    ) -> Result<T::Value, TraceError> {
        Err(TraceError("a value without its key".into()))
    }
}

/// A struct's fields handed out one by one, each value traced under its own path.
struct Fields<'a> {
    prefix: String,
    fields: std::slice::Iter<'static, &'static str>,
    current: Option<&'static str>,
    trace: &'a mut Trace,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = TraceError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceError> {
        let Some(&field) = self.fields.next() else {
            return Ok(None);
        };
        self.current = Some(field);
        seed.deserialize(field.into_deserializer()).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, TraceError> {
        let field = self
            .current
            .take()
            .ok_or_else(|| TraceError("no key".into()))?;
        let path = format!("{}{field}", self.prefix);
        self.trace.keys.push((path.clone(), Vec::new()));
        seed.deserialize(Tracer {
            prefix: format!("{path}."),
            trace: self.trace,
        })
    }
}
