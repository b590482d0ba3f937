//! Request parameters from a query string or a JSON object, read the same
//! way whichever way they came (v2 accepts GET, POST-JSON and JSON-RPC).
//!
//! Lists are repeated keys (`?a=1&a=2`, `a[]=1`) or JSON arrays; an empty
//! value or JSON `null` means "absent".

use serde_json::Value as Json;
use tonindex_model::Hash;

use super::encoding::{parse_address, parse_hash, ParsedAddress};

/// Why a parameter was rejected; each API words it in its own envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// The offending key.
    pub name: String,
    /// The offending value as given.
    pub value: String,
    /// What was expected ("an integer", "a hash", …).
    pub expected: &'static str,
    /// Whether the parameters came in a JSON body (POST, JSON-RPC) rather
    /// than a query string: v2 words the two differently.
    pub in_body: bool,
}

/// Parameters of one request as ordered `(key, value)` pairs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params {
    pairs: Vec<(String, String)>,
    /// Read from a JSON body rather than a query string.
    in_body: bool,
    /// The names the endpoint declares (its `request!` struct); reading
    /// any other is a bug (see `crate::api::request`).
    declared: Option<Vec<&'static str>>,
}

/// A JSON value that cannot be a parameter (a nested object, or a non-object body).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAParameterObject(pub String);

impl Params {
    /// Parses a URL query string (`None` = no query).
    pub fn from_query(query: Option<&str>) -> Self {
        let pairs = form_urlencoded::parse(query.unwrap_or("").as_bytes())
            .map(|(k, v)| {
                let k = k.strip_suffix("[]").unwrap_or(&k).to_string();
                (k, v.into_owned())
            })
            .collect();
        Self {
            pairs,
            in_body: false,
            declared: None,
        }
    }

    /// Reads a JSON object body: strings as given, numbers and booleans in
    /// their JSON spelling, arrays as repeated keys, `null` as absent; a
    /// nested array or object (a get-method stack entry) as its JSON text.
    pub fn from_json(body: &Json) -> Result<Self, NotAParameterObject> {
        let Json::Object(map) = body else {
            return Err(NotAParameterObject("the body must be a JSON object".into()));
        };
        let mut pairs = Vec::new();
        for (k, v) in map {
            let items: Vec<&Json> = match v {
                Json::Array(items) => items.iter().collect(),
                other => vec![other],
            };
            for item in items {
                match item {
                    Json::Null => {}
                    Json::String(s) => pairs.push((k.clone(), s.clone())),
                    Json::Number(n) => pairs.push((k.clone(), n.to_string())),
                    Json::Bool(b) => pairs.push((k.clone(), b.to_string())),
                    nested => pairs.push((k.clone(), nested.to_string())),
                }
            }
        }
        Ok(Self {
            pairs,
            in_body: true,
            declared: None,
        })
    }

    /// Limits reading to these names: the endpoint's declared parameters.
    pub fn declare(&mut self, names: Vec<&'static str>) {
        self.declared = Some(names);
    }

    /// Panics when `name` is not declared: a handler reading a parameter
    /// its request struct does not list (which the documents would miss).
    fn check(&self, name: &str) {
        if let Some(declared) = &self.declared {
            assert!(
                declared.contains(&name),
                "parameter {name:?} is read but not declared by the endpoint's request"
            );
        }
    }

    /// The values of a list parameter as JSON: nested entries parsed back,
    /// plain values as JSON strings. `None` for an entry that is not JSON.
    pub fn json_list(&self, name: &str) -> Option<Vec<Json>> {
        self.check(name);
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| {
                if v.starts_with('[') || v.starts_with('{') {
                    serde_json::from_str(v).ok()
                } else {
                    Some(Json::String(v.clone()))
                }
            })
            .collect()
    }

    /// Adds a value (e.g. from a request header that aliases a parameter).
    pub fn push(&mut self, name: &str, value: &str) {
        self.pairs.push((name.to_string(), value.to_string()));
    }

    /// Replaces every value of `name` with `value` (a header that
    /// overrides its parameter).
    pub fn set(&mut self, name: &str, value: &str) {
        self.pairs.retain(|(k, _)| k != name);
        self.push(name, value);
    }

    /// The first non-empty value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.check(name);
        self.pairs
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Whether `name` was given at all, even empty.
    pub fn contains(&self, name: &str) -> bool {
        self.check(name);
        self.pairs.iter().any(|(k, _)| k == name)
    }

    /// Every non-empty value of `name`, in order: repeated keys, and each
    /// value split at commas (`address=A,B`, as toncenter's gateway takes
    /// lists; no address, hash, opcode, index or BoC a list carries holds a
    /// comma).
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.check(name);
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .collect()
    }

    /// Parses `name` with `parse`, naming what was expected on failure.
    pub fn parsed<T>(
        &self,
        name: &str,
        expected: &'static str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Option<T>, ParamError> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => parse(v)
                .map(Some)
                .ok_or_else(|| self.error(name, v, expected)),
        }
    }

    /// Every value of `name` parsed with `parse`.
    pub fn parsed_all<T>(
        &self,
        name: &str,
        expected: &'static str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<Vec<T>, ParamError> {
        self.all(name)
            .into_iter()
            .map(|v| parse(v).ok_or_else(|| self.error(name, v, expected)))
            .collect()
    }

    /// Why `name` = `value` was refused; the value is cut short, since an
    /// error must not echo unbounded input.
    pub fn error(&self, name: &str, value: &str, expected: &'static str) -> ParamError {
        ParamError {
            name: crate::tvm::stack::cut(name),
            value: crate::tvm::stack::cut(value),
            expected,
            in_body: self.in_body,
        }
    }

    /// A decimal integer of type `T`.
    pub fn int<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ParamError> {
        self.parsed(name, "an integer", |v| v.trim().parse().ok())
    }

    /// A boolean: `1/t/true/yes/on` or `0/f/false/no/off`, any case.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, ParamError> {
        self.parsed(name, "a boolean", parse_bool)
    }

    /// A 32-byte hash in any accepted form.
    pub fn hash(&self, name: &str) -> Result<Option<Hash>, ParamError> {
        self.parsed(name, "a hash", parse_hash)
    }

    /// An address in any accepted form.
    pub fn address(&self, name: &str) -> Result<Option<ParsedAddress>, ParamError> {
        self.parsed(name, "an address", parse_address)
    }
}

/// Go `strconv.ParseBool` plus the spellings CPP's v2 accepts.
pub fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "t" | "true" | "y" | "yes" | "on" => Some(true),
        "0" | "f" | "false" | "n" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_and_json_read_alike() {
        let q = Params::from_query(Some("a=1&a[]=2&b=&c=x%20y"));
        assert_eq!(q.all("a"), vec!["1", "2"]);
        let commas = Params::from_query(Some("a=1,2&a=3&a=,4,"));
        assert_eq!(commas.all("a"), vec!["1", "2", "3", "4"]);
        assert_eq!(q.get("b"), None);
        assert_eq!(q.get("c"), Some("x y"));
        let j = Params::from_json(&serde_json::json!({
            "a": [1, "2"], "b": null, "c": "x y", "d": true
        }))
        .unwrap();
        assert_eq!(j.all("a"), vec!["1", "2"]);
        assert_eq!(j.get("b"), None);
        assert_eq!(j.bool("d").unwrap(), Some(true));
        assert!(Params::from_json(&serde_json::json!([1])).is_err());
        let nested = Params::from_json(&serde_json::json!({
            "stack": [["num", 5], {"@type": "x"}], "s": "t"
        }))
        .unwrap();
        assert_eq!(
            nested.json_list("stack").unwrap(),
            vec![
                serde_json::json!(["num", 5]),
                serde_json::json!({"@type": "x"})
            ]
        );
        assert_eq!(nested.json_list("s").unwrap(), vec![serde_json::json!("t")]);
        let err = q.int::<u32>("c").unwrap_err();
        assert_eq!((err.name.as_str(), err.expected), ("c", "an integer"));
        assert!(!err.in_body);
        assert!(j.int::<u32>("c").unwrap_err().in_body);
        let long = Params::from_query(Some(&format!("n={}", "9".repeat(100_000))));
        let err = long.int::<u32>("n").unwrap_err();
        assert!(err.value.len() < 100, "{}", err.value);
    }
}
