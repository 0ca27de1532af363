//! Where something was observed: a known finding, the silicon readings of a profile. A result
//! observed elsewhere is new evidence, and says so.

use crate::glob;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The devices and drivers a finding was observed on: globs over the names the driver reports
/// (`NVIDIA H100*`, `CUDA 13.*`), as recorded in observations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SeenOn {
    pub devices: Vec<String>,
    pub drivers: Vec<String>,
}

/// Where a result was observed: the device and driver of its observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site<'a> {
    pub device: &'a str,
    pub driver: &'a str,
}

impl<'a> Site<'a> {
    pub fn of(o: &'a ptxconform_reference::case::model::Observation) -> Site<'a> {
        Site {
            device: &o.device,
            driver: &o.driver,
        }
    }
}

impl SeenOn {
    /// Whether `site` lies inside this scope.
    pub fn covers(&self, site: Site) -> bool {
        let any = |globs: &[String], name: &str| globs.iter().any(|g| glob::glob(g, name));
        any(&self.devices, site.device) && any(&self.drivers, site.driver)
    }
    pub fn describe(&self) -> String {
        format!(
            "{}; driver {}",
            self.devices.join(", "),
            self.drivers.join(", ")
        )
    }
}

/// Where the sm_90 profile's silicon readings (each rule's predicted hardware outcome,
/// `ptxconform rules`) were recorded: the devices and driver of every observation in `cases/`
/// (a test keeps this true). A hardware run elsewhere says that its predictions are untested
/// there.
pub fn sm90_readings_seen_on() -> SeenOn {
    SeenOn {
        devices: vec!["NVIDIA H100 80GB HBM3".into(), "NVIDIA H200".into()],
        drivers: vec!["CUDA 13.0".into()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ptxconform_reference::case::load_dir;

    /// The sm_90 readings' scope is the devices and drivers of the corpus's recordings: each
    /// recording lies inside it, and each of its names has a recording.
    #[test]
    fn the_sm90_readings_scope_is_where_the_corpus_was_recorded() {
        let scope = sm90_readings_seen_on();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let (mut devices, mut drivers) = (Vec::new(), Vec::new());
        for (path, cases) in load_dir(&dir) {
            for c in cases.iter().flatten() {
                for o in &c.observed {
                    assert!(
                        scope.covers(Site::of(o)),
                        "{}: {} recorded on {} ({}), outside {}",
                        path.display(),
                        c.name,
                        o.device,
                        o.driver,
                        scope.describe()
                    );
                    devices.push(o.device.clone());
                    drivers.push(o.driver.clone());
                }
            }
        }
        for (globs, names) in [(&scope.devices, &devices), (&scope.drivers, &drivers)] {
            for g in globs {
                assert!(
                    names.iter().any(|n| glob::glob(g, n)),
                    "`{g}` names no recording"
                );
            }
        }
    }
}
