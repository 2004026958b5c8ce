//! What `Session.prepare()` does about the pressure on the window before it renders (seed 004):
//! past the trigger it compacts in the foreground, after waiting for a compaction already running
//! (a background one may bring the context under the trigger, and then nothing more is done);
//! past the background threshold it starts a compaction in the background and renders at once;
//! `force` compacts in the foreground whatever the pressure.

use super::Kind;
use crate::core::session::Pressure;

/// What `prepare()` does before it renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepare {
    /// Render the context as it is.
    Render,
    /// Start a background compaction when none runs; render without waiting for it.
    Background,
    /// Wait until no compaction runs, then compact in the foreground as `kind`; when
    /// `unless_relieved`, only if the context is still past the trigger after the wait.
    Compact { kind: Kind, unless_relieved: bool },
}

/// What `prepare()` does at `pressure` (`None`: an empty session); `force`: `prepare({ force })`;
/// `background`: background compactions are allowed for this call.
pub fn on_pressure(pressure: Option<Pressure>, force: bool, background: bool) -> Prepare {
    match pressure {
        Some(Pressure::Hard) if force => Prepare::Compact {
            kind: Kind::Forced,
            unless_relieved: false,
        },
        Some(Pressure::Hard) => Prepare::Compact {
            kind: Kind::Automatic,
            unless_relieved: true,
        },
        _ if force => Prepare::Compact {
            kind: Kind::Forced,
            unless_relieved: false,
        },
        Some(Pressure::Soft) if background => Prepare::Background,
        _ => Prepare::Render,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_trigger_compact_past_the_background_threshold_start_one_forced_always() {
        let automatic = Prepare::Compact {
            kind: Kind::Automatic,
            unless_relieved: true,
        };
        let forced = Prepare::Compact {
            kind: Kind::Forced,
            unless_relieved: false,
        };
        assert_eq!(on_pressure(Some(Pressure::Hard), false, true), automatic);
        assert_eq!(on_pressure(Some(Pressure::Hard), false, false), automatic);
        assert_eq!(
            on_pressure(Some(Pressure::Soft), false, true),
            Prepare::Background
        );
        assert_eq!(
            on_pressure(Some(Pressure::Soft), false, false),
            Prepare::Render
        );
        assert_eq!(
            on_pressure(Some(Pressure::Below), false, true),
            Prepare::Render
        );
        assert_eq!(on_pressure(None, false, true), Prepare::Render);
        for pressure in [
            None,
            Some(Pressure::Below),
            Some(Pressure::Soft),
            Some(Pressure::Hard),
        ] {
            assert_eq!(on_pressure(pressure, true, true), forced, "{pressure:?}");
        }
    }
}
