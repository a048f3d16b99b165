//! A scenario's metrics and words, each declared once as a typed struct: [`metrics!`] gives the
//! struct, the label/unit/help table the CLI, the stat cards and the sweeps read, a typed key per
//! metric ([`Metric`]) and the JSON; [`words!`] gives the struct of a run's sentences and its
//! [`Reading`]. A page reads fields or typed keys, so a misspelt metric does not compile.

use super::base::{Reading, Value};
use super::scenario::MetricSpec;

/// How a metric's field reads as a [`Value`] (JSON, stat card): a count as a whole number, a
/// measured float rounded to 0.1 (a share as [`Value::share`]), a missing float as null.
pub trait MetricValue {
    fn to_value(&self) -> Value;

    /// The value of a metric declared in `unit`.
    fn to_value_in(&self, _unit: &str) -> Value {
        self.to_value()
    }
}

impl MetricValue for u64 {
    fn to_value(&self) -> Value {
        Value::count(*self)
    }
}

impl MetricValue for u32 {
    fn to_value(&self) -> Value {
        Value::count(u64::from(*self))
    }
}

impl MetricValue for usize {
    fn to_value(&self) -> Value {
        Value::count(*self as u64)
    }
}

impl MetricValue for i64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
}

impl MetricValue for f64 {
    fn to_value(&self) -> Value {
        Value::num(*self)
    }

    fn to_value_in(&self, unit: &str) -> Value {
        if unit == "%" { Value::share(*self) } else { self.to_value() }
    }
}

impl MetricValue for Option<f64> {
    fn to_value(&self) -> Value {
        self.map_or(Value::Null, Value::num)
    }

    fn to_value_in(&self, unit: &str) -> Value {
        self.map_or(Value::Null, |x| x.to_value_in(unit))
    }
}

impl MetricValue for Option<u64> {
    fn to_value(&self) -> Value {
        self.map_or(Value::Null, Value::count)
    }
}

impl MetricValue for Option<i64> {
    fn to_value(&self) -> Value {
        self.map_or(Value::Null, Value::Int)
    }
}

impl MetricValue for Option<bool> {
    fn to_value(&self) -> Value {
        self.map_or(Value::Null, Value::Bool)
    }
}

impl MetricValue for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
}

impl MetricValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl MetricValue for &'static str {
    fn to_value(&self) -> Value {
        Value::Text((*self).to_string())
    }
}

/// A value the model shapes itself (a list of records, a rounding of its own).
impl MetricValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}

/// A scenario's metrics at one moment, as [`metrics!`] declares them.
pub trait MetricSet: Clone + PartialEq + Send + Sync + 'static {
    /// The declaration, in field order.
    fn specs() -> &'static [MetricSpec];
    /// Every metric as its JSON key and value, in declaration order.
    fn values(&self) -> Vec<(&'static str, Value)>;
}

/// One declared metric of the set `T`: its declaration and how to read it from a `T`. Made by
/// [`metrics!`] only, as `T::field`, so a page cannot name a metric its scenario lacks:
///
/// ```
/// use resilience_lab::scenarios::slow_server::SlowServerMetrics;
/// assert_eq!(SlowServerMetrics::p99_ms_after.key(), "p99_ms_after");
/// ```
///
/// and the same key misspelt does not compile:
///
/// ```compile_fail
/// use resilience_lab::scenarios::slow_server::SlowServerMetrics;
/// assert_eq!(SlowServerMetrics::p99_ms_aftr.key(), "p99_ms_after");
/// ```
pub struct Metric<T> {
    pub spec: MetricSpec,
    read: fn(&T) -> Value,
}

impl<T> Clone for Metric<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Metric<T> {}

impl<T> Metric<T> {
    #[doc(hidden)]
    pub const fn declared(spec: MetricSpec, read: fn(&T) -> Value) -> Self {
        Self { spec, read }
    }

    pub const fn key(&self) -> &'static str {
        self.spec.key
    }

    /// This metric's value in `metrics`.
    pub fn read(&self, metrics: &T) -> Value {
        (self.read)(metrics)
    }
}

/// Declares a scenario's metrics once:
///
/// ```ignore
/// metrics! {
///     /// slow-server's metrics.
///     pub struct SlowServerMetrics in METRICS {
///         pub arrived: u64 = ("Arrived", "req", "Requests that reached the load balancer."),
///         pub mean_ms: Option<f64> = ("Mean latency", "ms", "What clients waited on average."),
///     }
/// }
/// ```
///
/// gives `static METRICS: &[MetricSpec]` (keys are the field names), the struct, a typed key per
/// metric named by its field (`SlowServerMetrics::arrived`, a [`Metric`]), [`MetricSet`], and
/// (natively) the JSON object `run --json` prints.
#[macro_export]
macro_rules! metrics {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $specs:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = ($label:expr, $unit:expr, $help:expr) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),+
        }

        /// Each metric's declaration and reader, by its field's name.
        #[allow(non_upper_case_globals)]
        impl $name {
            $( pub const $field: $crate::sim::metrics::Metric<Self> = $crate::sim::metrics::Metric::declared(
                $crate::sim::MetricSpec { key: stringify!($field), label: $label, unit: $unit, help: $help },
                |m: &Self| $crate::sim::metrics::MetricValue::to_value_in(&m.$field, $unit),
            ); )+
        }

        /// The metrics, in declaration order: keys, labels, units and help.
        pub static $specs: &[$crate::sim::MetricSpec] = &[$( $name::$field.spec ),+];

        impl $crate::sim::metrics::MetricSet for $name {
            fn specs() -> &'static [$crate::sim::MetricSpec] {
                $specs
            }

            fn values(&self) -> Vec<(&'static str, $crate::sim::Value)> {
                vec![$( (stringify!($field), $crate::sim::metrics::MetricValue::to_value_in(&self.$field, $unit)) ),+]
            }
        }

        #[cfg(not(target_arch = "wasm32"))]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let values = $crate::sim::metrics::MetricSet::values(self);
                let mut map = s.serialize_map(Some(values.len()))?;
                for (key, value) in &values {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    };
}

/// What a run did, and why, as typed values (a scenario's `Facts`): its words are rendered
/// from them, `run --json` prints them under `facts`, and the tests check them against the
/// metrics, so no test reads a number back out of a sentence.
#[cfg(not(target_arch = "wasm32"))]
pub trait FactSet: Clone + PartialEq + std::fmt::Debug + serde::Serialize + Send + Sync + 'static {}
#[cfg(not(target_arch = "wasm32"))]
impl<T: Clone + PartialEq + std::fmt::Debug + serde::Serialize + Send + Sync + 'static> FactSet for T {}
/// The same in the browser, which carries no serde.
#[cfg(target_arch = "wasm32")]
pub trait FactSet: Clone + PartialEq + std::fmt::Debug + Send + Sync + 'static {}
#[cfg(target_arch = "wasm32")]
impl<T: Clone + PartialEq + std::fmt::Debug + Send + Sync + 'static> FactSet for T {}

/// One answer to a page's question: its id (a run's words name the one it bears out) and the
/// words the reader picks. A scenario declares its answers once, beside the rule that picks
/// one; its words and its page both read that declaration.
pub type Guess = (&'static str, &'static str);

/// One sentence of a run's words: said always (`String`) or only when the run has it
/// (`Option<String>`).
pub trait Said {
    fn say(&self, key: &'static str, reading: &mut Reading);
    /// The sentence, empty when there is none.
    fn text(&self) -> &str;
}

impl Said for String {
    fn say(&self, key: &'static str, reading: &mut Reading) {
        reading.push((key, self.clone()));
    }

    fn text(&self) -> &str {
        self
    }
}

impl Said for Option<String> {
    fn say(&self, key: &'static str, reading: &mut Reading) {
        if let Some(s) = self {
            reading.push((key, s.clone()));
        }
    }

    fn text(&self) -> &str {
        self.as_deref().unwrap_or("")
    }
}

/// One sentence of a scenario's words, by its field (`RetryStormWords::peak_note`): its key in
/// the run's [`Reading`] (a page's `data-reading` hook) and how to read it, declared once by
/// [`words!`], so a misspelt key does not compile.
pub struct Word<W> {
    pub key: &'static str,
    read: fn(&W) -> &str,
}

impl<W> Word<W> {
    #[doc(hidden)]
    pub const fn declared(key: &'static str, read: fn(&W) -> &str) -> Self {
        Self { key, read }
    }

    /// The sentence in these words, empty when the run has none.
    pub fn of<'w>(&self, words: &'w W) -> &'w str {
        (self.read)(words)
    }
}

impl<W> Clone for Word<W> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<W> Copy for Word<W> {}

/// A scenario's sentences about one run, as [`words!`] declares them.
pub trait WordSet: Clone + PartialEq + Default + Send + Sync + 'static {
    /// The sentences, each under its field's name, in declaration order (`run --json`'s
    /// `reading`).
    fn reading(&self) -> Reading;
    /// What the run hit of the model's limits (a full backlog…), empty when nothing: every
    /// page's frame shows it. A scenario says it in a field named `limit`.
    fn limit(&self) -> &str;
    /// The sentence under `key`, empty when the run has none or there is no such key.
    fn said(&self, key: &str) -> &str;
}

/// Declares the sentences a scenario says about a run, once:
///
/// ```ignore
/// words! {
///     /// What a slow-server run means.
///     pub struct SlowServerWords {
///         pub ratio: Option<String>,
///         pub answer: String,
///     }
/// }
/// ```
///
/// gives the struct, [`WordSet`] and a typed key per sentence named by its field
/// (`SlowServerWords::ratio`, a [`Word`]): its [`Reading`] keys are the field names. A field
/// named `limit` is the frame's notice of a model limit.
#[macro_export]
macro_rules! words {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),+
        }

        /// Each sentence's key and reader, by its field's name.
        #[allow(non_upper_case_globals)]
        impl $name {
            $( pub const $field: $crate::sim::metrics::Word<Self> = $crate::sim::metrics::Word::declared(
                stringify!($field),
                |w: &Self| $crate::sim::metrics::Said::text(&w.$field),
            ); )+
        }

        impl $crate::sim::metrics::WordSet for $name {
            fn reading(&self) -> $crate::sim::Reading {
                let mut reading = Vec::new();
                $( $crate::sim::metrics::Said::say(&self.$field, stringify!($field), &mut reading); )+
                reading
            }

            fn limit(&self) -> &str {
                $( if stringify!($field) == "limit" {
                    return $crate::sim::metrics::Said::text(&self.$field);
                } )+
                ""
            }

            fn said(&self, key: &str) -> &str {
                $( if key == stringify!($field) {
                    return $crate::sim::metrics::Said::text(&self.$field);
                } )+
                ""
            }
        }
    };
}
