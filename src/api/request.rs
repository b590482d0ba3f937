//! Typed requests: each endpoint declares its parameters once, as a struct
//! (`request!`), and that declaration is both what the handler reads and
//! what the OpenAPI documents list. A value type knows how it is written
//! (its parser, what the error says it expected, its JSON schema).
//!
//! The dispatcher reads the struct from the raw [`Params`] before the
//! handler runs and declares its names on them: a helper that still reads
//! raw parameters can only read declared ones (reading another is a bug,
//! and panics, which the API answers as an internal error), so the
//! documents cannot leave out a parameter the code reads.

use serde::Serialize;
use serde_json::{json, Value as Json};
use tonindex_model::Hash;
use utoipa::openapi::{schema::Schema, RefOr};
use utoipa::ToSchema;

use super::encoding::{parse_address, parse_hash, ParsedAddress};
use super::params::{parse_bool, ParamError, Params};

/// A parameter's value as its text is read.
pub trait ParamValue: Sized {
    /// What an unreadable value should have been ("an integer").
    const EXPECTED: &'static str;
    fn parse(text: &str) -> Option<Self>;
    /// The value's JSON schema; `in_body`: in a JSON body, not a query string.
    fn schema(in_body: bool) -> Json;
}

/// A field of a request: one parameter (optional, or a list) or a special
/// reading (a get-method stack).
pub trait Arg: Sized {
    /// Whether the parameter may be given more than once.
    const MANY: bool;
    fn read(p: &Params, name: &'static str) -> Result<Self, ParamError>;
    fn schema(in_body: bool) -> Json;
}

impl<T: ParamValue> Arg for Option<T> {
    const MANY: bool = false;
    fn read(p: &Params, name: &'static str) -> Result<Self, ParamError> {
        p.parsed(name, T::EXPECTED, T::parse)
    }
    fn schema(in_body: bool) -> Json {
        T::schema(in_body)
    }
}

impl<T: ParamValue> Arg for Vec<T> {
    const MANY: bool = true;
    fn read(p: &Params, name: &'static str) -> Result<Self, ParamError> {
        p.parsed_all(name, T::EXPECTED, T::parse)
    }
    fn schema(in_body: bool) -> Json {
        json!({ "type": "array", "items": T::schema(in_body) })
    }
}

/// One parameter as a document lists it.
#[derive(Debug, Clone, Copy)]
pub struct ParamDoc {
    pub name: &'static str,
    pub required: bool,
    pub many: bool,
    /// Its doc comment, line by line.
    pub about: &'static [&'static str],
    pub schema: fn(bool) -> Json,
}

impl ParamDoc {
    /// The doc comment as one line.
    pub fn about(&self) -> String {
        self.about
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A request's parameters, read from raw [`Params`] (`request!` writes it).
pub trait Request: Sized {
    fn read(p: &Params) -> Result<Self, ParamError>;
    /// The parameters, in the order declared.
    fn params(out: &mut Vec<ParamDoc>);

    /// The declared parameter names.
    fn names() -> Vec<&'static str> {
        let mut out = Vec::new();
        Self::params(&mut out);
        out.into_iter().map(|d| d.name).collect()
    }
}

/// An endpoint without parameters.
impl Request for () {
    fn read(_: &Params) -> Result<Self, ParamError> {
        Ok(())
    }
    fn params(_: &mut Vec<ParamDoc>) {}
}

/// A handler as an API's dispatcher and documents see it; `E` is the
/// API's error.
pub trait Handle<E>: Sync {
    /// Reads the request, runs the handler, writes the response's JSON.
    fn call(&self, ctx: &super::Ctx<'_>, p: &Params) -> Result<String, E>;
    /// The names of the request's parameters.
    fn names(&self) -> Vec<&'static str>;
    /// The request's parameters.
    fn params(&self) -> Vec<ParamDoc>;
    /// The response's schema; the schemas it refers to are added to `components`.
    fn response(&self, components: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema>;
}

/// A handler from its request type `Q` to its response type `R`: the one
/// place both are named, for the dispatcher and the documents alike.
pub struct Typed<Q, R, E> {
    pub f: fn(&super::Ctx<'_>, &Params, Q) -> Result<R, E>,
}

impl<Q, R, E> Handle<E> for Typed<Q, R, E>
where
    Q: Request,
    R: Serialize + ToSchema,
    E: From<ParamError> + From<super::response::BodyError>,
{
    fn call(&self, ctx: &super::Ctx<'_>, p: &Params) -> Result<String, E> {
        let q = Q::read(p)?;
        Ok(super::response::json(&(self.f)(ctx, p, q)?)?)
    }
    fn names(&self) -> Vec<&'static str> {
        Q::names()
    }
    fn params(&self) -> Vec<ParamDoc> {
        let mut out = Vec::new();
        Q::params(&mut out);
        out
    }
    fn response(&self, components: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
        R::schemas(components);
        R::schema()
    }
}

/// A field's wire name: its identifier without a raw `r#`.
pub fn wire_name(ident: &'static str) -> &'static str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

/// Declares a request struct: each field, with its doc comment, is one
/// parameter named as the field (`[required]` before it marks it required
/// in the documents; the handler says what a missing one means). Groups
/// after `with` are requests shared by many endpoints, read and listed
/// in place.
macro_rules! request {
    (@required required) => { true };
    (@required) => { false };
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $about:literal])+
                $([$req:ident])? $field:ident : $ty:ty
            ),* $(,)?
        }
        $( with { $( $gfield:ident : $gty:ty ),* $(,)? } )?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default)]
        $vis struct $name {
            $( $(#[doc = $about])+ pub $field: $ty, )*
            $($( pub $gfield: $gty, )*)?
        }

        impl $crate::api::request::Request for $name {
            fn read(
                p: &$crate::api::params::Params,
            ) -> Result<Self, $crate::api::params::ParamError> {
                Ok(Self {
                    $( $field: <$ty as $crate::api::request::Arg>::read(
                        p,
                        $crate::api::request::wire_name(stringify!($field)),
                    )?, )*
                    $($( $gfield: <$gty as $crate::api::request::Request>::read(p)?, )*)?
                })
            }
            fn params(out: &mut Vec<$crate::api::request::ParamDoc>) {
                $( out.push($crate::api::request::ParamDoc {
                    name: $crate::api::request::wire_name(stringify!($field)),
                    required: $crate::api::request::request!(@required $($req)?),
                    many: <$ty as $crate::api::request::Arg>::MANY,
                    about: &[$($about),+],
                    schema: <$ty as $crate::api::request::Arg>::schema,
                }); )*
                $($( <$gty as $crate::api::request::Request>::params(out); )*)?
            }
        }
    };
}
pub(crate) use request;

// ---------------------------------------------------------------------------
// Value types.

fn int_schema(minimum: Option<i64>) -> Json {
    match minimum {
        Some(m) => json!({ "type": "integer", "minimum": m }),
        None => json!({ "type": "integer" }),
    }
}

macro_rules! integer_values {
    ($($t:ty => $min:expr),* $(,)?) => {$(
        impl ParamValue for $t {
            const EXPECTED: &'static str = "an integer";
            fn parse(text: &str) -> Option<Self> {
                text.trim().parse().ok()
            }
            fn schema(_: bool) -> Json {
                int_schema($min)
            }
        }
    )*};
}

integer_values!(i32 => None, i64 => None, u8 => Some(0), u16 => Some(0), u32 => Some(0), u64 => Some(0));

impl ParamValue for bool {
    const EXPECTED: &'static str = "a boolean";
    fn parse(text: &str) -> Option<Self> {
        parse_bool(text)
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "boolean" })
    }
}

impl ParamValue for String {
    const EXPECTED: &'static str = "a string";
    fn parse(text: &str) -> Option<Self> {
        Some(text.to_string())
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "string" })
    }
}

impl ParamValue for Hash {
    const EXPECTED: &'static str = "a hash";
    fn parse(text: &str) -> Option<Self> {
        parse_hash(text)
    }
    fn schema(_: bool) -> Json {
        json!({
            "type": "string",
            "description": "64 hex digits (optionally 0x) or 44 characters of base64",
            "pattern": "^(0x)?[0-9a-fA-F]{64}$|^[A-Za-z0-9+/_-]{43}=?$",
        })
    }
}

impl ParamValue for ParsedAddress {
    const EXPECTED: &'static str = "an address";
    fn parse(text: &str) -> Option<Self> {
        parse_address(text)
    }
    fn schema(_: bool) -> Json {
        json!({
            "type": "string",
            "description": "raw (wc:hex) or user-friendly base64",
            "pattern": "^-?[0-9]+:[0-9a-fA-F]{64}$|^[A-Za-z0-9+/_-]{48}$",
        })
    }
}

/// v3's unix time: an integer, or a float (truncated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Utime(pub u64);

impl ParamValue for Utime {
    const EXPECTED: &'static str = "a unix time";
    fn parse(text: &str) -> Option<Self> {
        super::v3::parse_utime(text).map(Utime)
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "number", "minimum": 0 })
    }
}

/// v3's shard: hex (optionally `0x`) first, then signed decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShardArg(pub u64);

impl ParamValue for ShardArg {
    const EXPECTED: &'static str = "a shard id";
    fn parse(text: &str) -> Option<Self> {
        super::v3::parse_shard(text).map(ShardArg)
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "string", "pattern": "^(0x)?[0-9a-fA-F]{1,16}$|^-?[0-9]+$" })
    }
}

/// v3's opcode: `0x` hex, hex, or signed 32-bit decimal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeArg(pub u32);

impl ParamValue for OpcodeArg {
    const EXPECTED: &'static str = "an opcode";
    fn parse(text: &str) -> Option<Self> {
        super::v3::parse_opcode(text).map(OpcodeArg)
    }
    fn schema(_: bool) -> Json {
        json!({
            "type": "string",
            "pattern": "^0x[0-9a-fA-F]{1,8}$|^[0-9a-fA-F]{1,8}$|^-?[0-9]+$",
        })
    }
}

/// Text from a fixed set of words; the handler checks it and says what
/// the words are in the API's own wording, so any text reads here.
pub trait Words {
    const WORDS: &'static [&'static str];
}

/// A word of `W` (checked by the handler).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<W>(pub String, std::marker::PhantomData<W>);

impl<W> Word<W> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<W: Words> ParamValue for Word<W> {
    const EXPECTED: &'static str = "a word";
    fn parse(text: &str) -> Option<Self> {
        Some(Word(text.to_string(), std::marker::PhantomData))
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "string", "enum": W::WORDS })
    }
}

/// `sort`: `asc` or `desc` (also `a`/`d`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortWords;
impl Words for SortWords {
    const WORDS: &'static [&'static str] = &["asc", "desc"];
}

/// `direction`: `in` or `out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectionWords;
impl Words for DirectionWords {
    const WORDS: &'static [&'static str] = &["in", "out"];
}

/// A get-method's name, or its integer id (a JSON number in a body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodArg(pub String);

impl ParamValue for MethodArg {
    const EXPECTED: &'static str = "a method name or id";
    fn parse(text: &str) -> Option<Self> {
        Some(MethodArg(text.to_string()))
    }
    fn schema(in_body: bool) -> Json {
        if in_body {
            json!({ "type": ["string", "integer"] })
        } else {
            json!({ "type": "string" })
        }
    }
}

/// A get-method's input stack as v3 takes it: `[{"type", "value"}]` in a
/// body, its JSON text in a query string. `None` when not given; an entry
/// that is not JSON leaves it `Some(None)` for the handler to refuse.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StackV3(pub Option<Option<Vec<Json>>>);

impl Arg for StackV3 {
    const MANY: bool = false;
    fn read(p: &Params, name: &'static str) -> Result<Self, ParamError> {
        if !p.contains(name) {
            return Ok(StackV3(None));
        }
        Ok(StackV3(Some(p.json_list(name))))
    }
    fn schema(in_body: bool) -> Json {
        if in_body {
            json!({
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "type": { "type": "string", "enum": ["num", "cell", "slice"] },
                        "value": { "type": "string" },
                    },
                    "required": ["type", "value"],
                },
            })
        } else {
            json!({ "type": "string", "description": "the stack as JSON text, e.g. [[\"num\", 5]]" })
        }
    }
}

/// A boolean the handler reads itself (to word a bad one its own way):
/// any text reads here; the documents say boolean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoolText(pub String);

impl ParamValue for BoolText {
    const EXPECTED: &'static str = "a boolean";
    fn parse(text: &str) -> Option<Self> {
        Some(BoolText(text.to_string()))
    }
    fn schema(_: bool) -> Json {
        json!({ "type": "boolean" })
    }
}

/// A get-method's input stack as v2 takes it: JSON entries (arrays or
/// objects), in a query string as JSON text; `None` when an entry is not
/// JSON, for the handler to refuse.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StackV2(pub Option<Vec<Json>>);

impl Arg for StackV2 {
    const MANY: bool = false;
    fn read(p: &Params, name: &'static str) -> Result<Self, ParamError> {
        Ok(StackV2(p.json_list(name)))
    }
    fn schema(in_body: bool) -> Json {
        if in_body {
            json!({ "type": "array", "items": { "type": ["array", "object"] } })
        } else {
            json!({ "type": "string", "description": "the stack as JSON text, e.g. [[\"num\", 5]]" })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    request! {
        /// A request for the tests.
        struct Sample {
            /// An account
            [required] address: Option<ParsedAddress>,
            /// Some hashes
            r#hash: Vec<Hash>,
            /// A time
            start_utime: Option<Utime>,
        }
        with { flag: Flag }
    }

    request! {
        /// A group.
        struct Flag {
            /// A flag
            include_boc: Option<bool>,
        }
    }

    #[test]
    fn a_request_reads_and_lists_its_fields() {
        let p = Params::from_query(Some(&format!(
            "address=0:{}&hash={},{}&start_utime=12.5&include_boc=0",
            "ab".repeat(32),
            "11".repeat(32),
            "22".repeat(32)
        )));
        let q = Sample::read(&p).unwrap();
        assert_eq!(q.address.unwrap().address.id, [0xab; 32]);
        assert_eq!(q.hash, vec![[0x11; 32], [0x22; 32]]);
        assert_eq!(q.start_utime, Some(Utime(12)));
        assert_eq!(q.flag.include_boc, Some(false));
        let mut docs = Vec::new();
        Sample::params(&mut docs);
        let listed: Vec<_> = docs.iter().map(|d| (d.name, d.required, d.many)).collect();
        assert_eq!(
            listed,
            vec![
                ("address", true, false),
                ("hash", false, true),
                ("start_utime", false, false),
                ("include_boc", false, false),
            ]
        );
        assert_eq!(docs[1].about(), "Some hashes");
        assert_eq!((docs[1].schema)(false)["type"], "array");
        // A bad value names the parameter and what it should be.
        let bad = Sample::read(&Params::from_query(Some("start_utime=soon"))).unwrap_err();
        assert_eq!(
            (bad.name.as_str(), bad.expected),
            ("start_utime", "a unix time")
        );
    }

    #[test]
    fn reading_an_undeclared_parameter_is_caught() {
        let mut p = Params::from_query(Some("address=x&other=1"));
        p.declare(Sample::names());
        assert_eq!(p.get("address"), Some("x"));
        let read = std::panic::catch_unwind(|| p.get("other").map(str::to_owned));
        assert!(read.is_err(), "an undeclared read must not pass unnoticed");
    }
}
