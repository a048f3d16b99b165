//! A scenario's typed configuration: the `config!` and `choice!` macros that declare the
//! parameters and the struct a model reads together, and the traits they implement.

use super::spec::ParamSpec;
use super::values::{Params, same_declaration};

/// A parameter value as a model reads it: a number, a count, a toggle or a choice.
pub trait ParamValue: Sized {
    /// Whether the type holds only whole numbers (its declaration must have whole steps).
    const INTEGER: bool = false;
    fn from_value(value: f64) -> Self;
    fn to_value(&self) -> f64;
}

impl ParamValue for f64 {
    fn from_value(value: f64) -> Self {
        value
    }
    fn to_value(&self) -> f64 {
        *self
    }
}

impl ParamValue for bool {
    fn from_value(value: f64) -> Self {
        value >= 0.5
    }
    fn to_value(&self) -> f64 {
        f64::from(u8::from(*self))
    }
}

macro_rules! whole_number_params {
    ($($t:ty),*) => {$(
        impl ParamValue for $t {
            const INTEGER: bool = true;
            // Values are sanitized to the declared step first, so the cast only drops a `.0`.
            fn from_value(value: f64) -> Self {
                value as $t
            }
            fn to_value(&self) -> f64 {
                *self as f64
            }
        }
    )*};
}
whole_number_params!(u32, u64, usize);

/// A scenario's typed configuration: one field per declared parameter, built by
/// [`config!`](crate::config) together with the declaration, so a model and a page read
/// `config.rate`, never `params.get("rate")`.
pub trait Config: Clone + PartialEq + std::fmt::Debug + 'static {
    /// The declaration the fields come from, in order.
    fn specs() -> &'static [ParamSpec];
    /// The fields from values in declaration order.
    fn from_values(values: &[f64]) -> Self;
    /// The values in declaration order.
    fn to_values(&self) -> Vec<f64>;

    /// The configuration held by `params`, which must belong to this declaration.
    fn from_params(params: &Params) -> Self {
        assert!(same_declaration(params.specs(), Self::specs()), "parameters of another scenario");
        Self::from_values(params.values())
    }

    /// The declared defaults.
    fn defaults() -> Self {
        Self::from_params(&Params::defaults(Self::specs()))
    }

    /// This configuration with the parameters it leaves unused at their defaults.
    fn as_read(&self) -> Self {
        Self::from_params(&self.to_params().with_unused_at_defaults())
    }

    /// These values as parameters, each snapped to its range and step.
    fn to_params(&self) -> Params {
        let mut params = Params::defaults(Self::specs());
        for (i, v) in self.to_values().into_iter().enumerate() {
            params.set_at(i, v);
        }
        params
    }
}

/// Whether two texts are the same, in a constant (`config!` checks ids against field names).
pub const fn same_text(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a scenario's parameters and its typed configuration at once:
///
/// ```ignore
/// config! {
///     /// What the model reads.
///     pub struct SlowServerConfig in PARAMS {
///         pub rate: f64 = ParamSpec::number("rate", "Arrival rate", "req/s", 150.0, (1.0, 3000.0, 1.0), "…"),
///         pub policy: Policy = ParamSpec::choice("policy", "Balancing policy", Policy::OPTIONS, 0, "…"),
///     }
/// }
/// ```
///
/// gives `static PARAMS: &[ParamSpec]` (the declaration the CLI, the URL and the sliders
/// read), the struct with one field per parameter, in the same order, and each parameter's id
/// as a constant named by its field (`SlowServerConfig::rate == "rate"`); an id that is not its
/// field's name does not compile.
#[macro_export]
macro_rules! config {
    (
        $(#[$meta:meta])*
        pub struct $name:ident in $specs:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty = $spec:expr ),+ $(,)?
        }
    ) => {
        /// The parameters, in declaration order: ids, labels, units, defaults, ranges and help.
        pub static $specs: &[$crate::sim::ParamSpec] =
            &[$( ($spec).for_field(<$ty as $crate::sim::params::ParamValue>::INTEGER) ),+];

        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $( $(#[$fmeta])* pub $field: $ty ),+
        }

        /// Each parameter's id, by its field's name: sweeps, compare views and pages name a
        /// parameter as `Config::field`, so a misspelt one does not compile.
        #[allow(non_upper_case_globals)]
        impl $name {
            $( pub const $field: &'static str = stringify!($field); )+
        }

        // A parameter's id is its field's name (links and the CLI use the id, code the field).
        const _: () = {
            $( assert!(
                $crate::sim::params::same_text(($spec).id, stringify!($field)),
                concat!("the parameter of field `", stringify!($field), "` must have the id \"", stringify!($field), "\""),
            ); )+
        };

        impl $crate::sim::params::Config for $name {
            fn specs() -> &'static [$crate::sim::ParamSpec] {
                $specs
            }

            fn from_values(values: &[f64]) -> Self {
                let mut values = values.iter().copied();
                Self {
                    $( $field: $crate::sim::params::ParamValue::from_value(
                        values.next().expect("one value per declared parameter"),
                    ) ),+
                }
            }

            fn to_values(&self) -> Vec<f64> {
                vec![$( $crate::sim::params::ParamValue::to_value(&self.$field) ),+]
            }
        }
    };
}

/// Declares the options of a choice parameter as an enum, each with its id, label and help:
///
/// ```ignore
/// choice! {
///     pub enum Policy {
///         RoundRobin = ("round-robin", "Round robin", "Each server in turn."),
///         Random = ("random", "Random", "A server at random."),
///     }
/// }
/// ```
#[macro_export]
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = ($id:literal, $label:literal, $help:literal) ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The options as the declaration lists them.
            pub const OPTIONS: &'static [$crate::sim::params::ChoiceOption] = &[
                $( $crate::sim::params::ChoiceOption { id: $id, label: $label, help: $help } ),+
            ];
            /// Every option, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            pub fn id(self) -> &'static str {
                Self::OPTIONS[self as usize].id
            }

            pub fn label(self) -> &'static str {
                Self::OPTIONS[self as usize].label
            }

            pub fn help(self) -> &'static str {
                Self::OPTIONS[self as usize].help
            }
        }

        impl $crate::sim::params::ParamValue for $name {
            fn from_value(value: f64) -> Self {
                Self::ALL[(value as usize).min(Self::ALL.len() - 1)]
            }

            fn to_value(&self) -> f64 {
                *self as usize as f64
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::config! {
        /// A configuration for the test, as a scenario declares one.
        pub struct TestConfig in TEST_PARAMS {
            pub rate: f64 = ParamSpec::number("rate", "Rate", "req/s", 10.0, (1.0, 100.0, 1.0), "How many."),
            pub on: bool = ParamSpec::toggle("on", "On", false, "Whether."),
        }
    }

    #[test]
    fn each_parameter_id_is_a_constant_named_by_its_field() {
        assert_eq!(TestConfig::rate, "rate");
        assert_eq!(TestConfig::on, "on");
        assert_eq!(TEST_PARAMS.iter().map(|p| p.id).collect::<Vec<_>>(), [TestConfig::rate, TestConfig::on]);
    }

    #[test]
    fn same_text_compares_every_byte() {
        assert!(same_text("rate", "rate"));
        assert!(!same_text("rate", "rats"));
        assert!(!same_text("rate", "rat"));
        assert!(same_text("", ""));
    }
}
