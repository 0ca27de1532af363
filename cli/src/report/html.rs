//! The self-contained HTML report: outcome counts, a filter bar (family, verdict, free text; a
//! small inline script, no external assets), the failures first, then one table per family
//! (failures, known findings, then the rest), then every divergence with a byte picture, the
//! complete table of its differing bytes and, for tensor loads, the box and tile pictures.

use super::esc;
use super::tensor_svg;
use ptxconform_core::result::{CaseResult, ExpectedByte, RegionDiff, Summary, Verdict};
use ptxconform_reference::case::{load_file, Case};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Bytes drawn at most in a divergence's byte picture (the table below it lists every differing
/// byte, so nothing is lost; the caption says when the picture stops early).
const PICTURE_BYTES: usize = 16 * 1024;
/// Differing bytes listed openly; a longer table is folded into a `<details>` (all rows kept).
const OPEN_ROWS: usize = 32;

const STYLE: &str = "body{font-family:sans-serif;margin:0 2em 2em}table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child,th.l{text-align:left}td.l{text-align:left}td.d{text-align:left;overflow-wrap:anywhere}td.v{white-space:nowrap}.fail{color:#d62728;font-weight:bold}.known{color:#9467bd;font-weight:bold}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}#filters{position:sticky;top:0;background:#f7f7f7;border-bottom:1px solid #ccc;padding:.6em 1em;margin:0 -2em 1em;z-index:2}#filters label{margin-right:1.2em}#f-count{color:#555}figure.tensor{margin:0 0 1.5em}figure.tensor svg{vertical-align:top;margin:0 1.5em .5em 0}figcaption{font-family:monospace;margin-bottom:.4em}section.div{border-top:2px solid #ddd;margin-top:1em}div.bytes{display:flex;gap:2.5em;align-items:flex-start;margin-bottom:1em}div.bytes p{margin-top:0}";

/// Filtering: a row (or divergence block) shows when it matches the family, the verdict (or
/// "failures") and contains the text; a section with no row left is hidden. The filter is kept in
/// the address (`#family=…&verdict=…&text=…`), so a filtered view can be linked to (where the
/// browser lets a local page rewrite its address).
const SCRIPT: &str = r#"(function(){
var fam=document.getElementById('f-family'),ver=document.getElementById('f-verdict'),txt=document.getElementById('f-text'),cnt=document.getElementById('f-count');
function ok(e,f,v,t){return(!f||e.dataset.family===f)&&(!v||(v==='@failures'?e.dataset.fail==='1':e.dataset.verdict===v))&&(!t||e.dataset.text.indexOf(t)>=0);}
function apply(){
var f=fam.value,v=ver.value,t=txt.value.toLowerCase().trim(),shown=0,total=0;
document.querySelectorAll('.row').forEach(function(e){var m=ok(e,f,v,t);e.hidden=!m;if(e.classList.contains('case')){total++;if(m)shown++;}});
document.querySelectorAll('section.group').forEach(function(s){if(s.querySelector('.row'))s.hidden=!s.querySelector('.row:not([hidden])');});
cnt.textContent=shown+' of '+total+' cases shown';
try{if(f||v||t){var q=new URLSearchParams();if(f)q.set('family',f);if(v)q.set('verdict',v);if(t)q.set('text',t);history.replaceState(null,'','#'+q.toString());}
else if(location.hash.indexOf('=')>=0)history.replaceState(null,'',location.pathname);}catch(e){}}
if(location.hash.indexOf('=')>=0){var q=new URLSearchParams(location.hash.slice(1));fam.value=q.get('family')||'';ver.value=q.get('verdict')||'';txt.value=q.get('text')||'';}
fam.addEventListener('change',apply);ver.addEventListener('change',apply);txt.addEventListener('input',apply);apply();})();"#;

/// Failures first, then known findings, then everything else.
fn rank(v: &Verdict) -> u8 {
    if v.is_failure() {
        0
    } else if *v == Verdict::Known {
        1
    } else {
        2
    }
}

fn verdict_class(v: &Verdict) -> &'static str {
    match rank(v) {
        0 => " class=\"fail\"",
        1 => " class=\"known\"",
        _ => "",
    }
}

/// The attributes the filter script reads.
fn filter_attrs(r: &CaseResult) -> String {
    format!(
        "data-family=\"{}\" data-verdict=\"{}\" data-fail=\"{}\" data-text=\"{}\"",
        esc(&r.family),
        esc(r.verdict.name()),
        u8::from(r.verdict.is_failure()),
        esc(&format!(
            "{} {} {}",
            r.case,
            r.file,
            super::detail_with_attribution(r)
        )
        .to_lowercase())
    )
}

pub(super) fn expected_text(e: &ExpectedByte) -> String {
    match e {
        ExpectedByte::Known(k) => format!("{k:#04x}"),
        ExpectedByte::OneOf(v) => format!(
            "one of {}",
            v.iter()
                .map(|b| format!("{b:#04x}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
        ExpectedByte::Any => "any".into(),
    }
}

/// An SVG grid of a region: one cell per byte, 32 per row; green = matches a known value, blue =
/// matches an uncertain (allowed-set) value, red = differs. Hover shows expected and observed.
/// At most [`PICTURE_BYTES`] bytes are drawn.
pub fn diff_svg(d: &RegionDiff) -> String {
    const COLS: usize = 32;
    const CELL: usize = 12;
    let n = d.expected.len().min(d.observed.len()).min(PICTURE_BYTES);
    let rows = n.div_ceil(COLS);
    let (w, h) = (COLS * CELL + 60, rows * CELL + 4);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-size=\"9\" font-family=\"monospace\">");
    for row in 0..rows {
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{}\">{:#06x}</text>",
            row * CELL + 10,
            row * COLS
        );
    }
    for i in 0..n {
        let (e, o) = (&d.expected[i], d.observed[i]);
        let color = if !e.allows(o) {
            "#d62728"
        } else if e.is_known() {
            "#2ca02c"
        } else {
            "#1f77b4"
        };
        let exp = expected_text(e);
        let _ = write!(
            s,
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{color}\"><title>byte {i}: expected {exp}, observed {o:#04x}</title></rect>",
            56 + (i % COLS) * CELL,
            (i / COLS) * CELL + 2,
            CELL - 1,
            CELL - 1
        );
    }
    s.push_str("</svg>");
    s
}

/// One region's divergence: the count, the picture and every differing byte.
fn region_html(h: &mut String, d: &RegionDiff) {
    let n = d.expected.len().min(d.observed.len());
    let differing: Vec<(usize, &ExpectedByte, u8)> = d
        .expected
        .iter()
        .zip(&d.observed)
        .enumerate()
        .filter(|(_, (e, o))| !e.allows(**o))
        .map(|(i, (e, o))| (i, e, *o))
        .collect();
    let _ = write!(
        h,
        "<p>region <b>{}</b>: {} of {} bytes differ{}</p>",
        esc(&d.region),
        differing.len(),
        d.expected.len(),
        differing
            .first()
            .map(|(i, _, _)| format!(", first at byte {i}"))
            .unwrap_or_default()
    );
    if d.expected.len() != d.observed.len() {
        let _ = write!(
            h,
            "<p class=\"fail\">expected {} bytes, observed {}: only the first {n} are compared</p>",
            d.expected.len(),
            d.observed.len()
        );
    }
    if n > PICTURE_BYTES {
        let _ = write!(
            h,
            "<p>picture: the first {PICTURE_BYTES} of {n} bytes (the table lists every differing byte)</p>"
        );
    }
    // The picture and the table side by side.
    h.push_str("<div class=\"bytes\">");
    h.push_str(&diff_svg(d));
    if differing.is_empty() {
        h.push_str("</div>");
        return;
    }
    h.push_str("<div>");
    let mut t = String::from(
        "<table class=\"diff\"><tr><th>byte</th><th>offset</th><th>expected</th><th>observed</th></tr>",
    );
    for (i, e, o) in &differing {
        let _ = write!(
            t,
            "<tr><td>{i}</td><td>{i:#x}</td><td>{}</td><td>{o:#04x}</td></tr>",
            esc(&expected_text(e))
        );
    }
    t.push_str("</table>");
    if differing.len() > OPEN_ROWS {
        let _ = write!(
            h,
            "<details><summary>all {} differing bytes of {} (table of {} rows)</summary>{t}</details>",
            differing.len(),
            esc(&d.region),
            differing.len()
        );
    } else {
        let _ = write!(
            h,
            "<p>{} differing byte{}:</p>{t}",
            differing.len(),
            if differing.len() == 1 { "" } else { "s" }
        );
    }
    h.push_str("</div></div>");
}

/// The tensor-load figures of a result's case, read from its case file (`r.file`), cached per
/// file; empty when the file cannot be read or the case has no tensor load.
pub struct FilePictures {
    files: BTreeMap<String, Result<Vec<Case>, String>>,
}

impl FilePictures {
    pub fn new() -> FilePictures {
        FilePictures {
            files: BTreeMap::new(),
        }
    }
    pub fn of(&mut self, r: &CaseResult) -> String {
        let cases = self
            .files
            .entry(r.file.clone())
            .or_insert_with(|| load_file(std::path::Path::new(&r.file)).map_err(|e| e.to_string()));
        match cases {
            Ok(cs) => cs
                .iter()
                .find(|c| c.name == r.case)
                .map(|c| tensor_svg::html(c, &r.diffs))
                .unwrap_or_default(),
            Err(_) => String::new(),
        }
    }
}

impl Default for FilePictures {
    fn default() -> Self {
        FilePictures::new()
    }
}

fn result_row(h: &mut String, i: usize, r: &CaseResult, class: &str, family_column: bool) {
    let name = if r.diffs.is_empty() {
        esc(&r.case)
    } else {
        format!("<a href=\"#d{i}\">{}</a>", esc(&r.case))
    };
    let _ = write!(
        h,
        "<tr class=\"row{class}\" {}><td>{name}</td>",
        filter_attrs(r)
    );
    if family_column {
        let _ = write!(h, "<td class=\"l\">{}</td>", esc(&r.family));
    }
    let _ = write!(
        h,
        "<td class=\"v\"><span{}>{}</span></td><td class=\"d\">{}</td><td class=\"l\">{}</td></tr>",
        verdict_class(&r.verdict),
        esc(r.verdict.name()),
        esc(&super::detail_with_attribution(r)),
        esc(&r.file)
    );
}

/// The report page; `pictures` gives the tensor-load figures (HTML) of a divergent result.
pub fn html_with(s: &Summary, pictures: &mut dyn FnMut(&CaseResult) -> String) -> String {
    let mut h = format!("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>ptxconform run</title><style>{STYLE}</style></head><body>");
    let fails = s.failures();
    let known = s
        .results
        .iter()
        .filter(|r| r.verdict == Verdict::Known)
        .count();
    let departed = s.spec_departures().count();
    let _ = write!(
        h,
        "<h1>ptxconform run</h1><p>device: {} — driver: {} — date: {} — mode: {} — profile: {} — ptxconform {}</p><p>{} cases: <span class=\"{}\">{fails} failure{}</span>, {known} known finding{}, {departed} spec departure{}</p>",
        esc(&s.info.device),
        esc(&s.info.driver),
        esc(&s.info.date),
        esc(&s.info.mode),
        esc(&s.info.profile),
        esc(&s.info.ptxconform),
        s.results.len(),
        if fails > 0 { "fail" } else { "" },
        if fails == 1 { "" } else { "s" },
        if known == 1 { "" } else { "s" },
        if departed == 1 { "" } else { "s" },
    );
    if let Some(note) = s.scope.note() {
        let class = if s.scope.is_partial() {
            " class=\"fail\""
        } else {
            ""
        };
        let _ = write!(h, "<p id=\"scope\"{class}>{}</p>", esc(&note));
    }
    // The filter bar: every family and every verdict of the run.
    h.push_str("<div id=\"filters\"><label>family <select id=\"f-family\"><option value=\"\">all families</option>");
    for fam in s.counts.keys() {
        let _ = write!(h, "<option value=\"{0}\">{0}</option>", esc(fam));
    }
    h.push_str("</select></label><label>verdict <select id=\"f-verdict\"><option value=\"\">all verdicts</option><option value=\"@failures\">failures only</option>");
    for v in s.totals.keys() {
        let _ = write!(h, "<option value=\"{0}\">{0}</option>", esc(v));
    }
    let _ = write!(
        h,
        "</select></label><label>text <input id=\"f-text\" type=\"search\" size=\"32\" placeholder=\"case, file or detail\"></label><span id=\"f-count\">{0} of {0} cases shown</span></div>",
        s.results.len()
    );
    let verdicts: Vec<&String> = s.totals.keys().collect();
    h.push_str("<h2>Outcomes per family</h2><table><tr><th>family</th>");
    for v in &verdicts {
        let _ = write!(h, "<th>{}</th>", esc(v));
    }
    h.push_str("</tr>");
    for (fam, c) in s
        .counts
        .iter()
        .chain(std::iter::once((&"total".to_string(), &s.totals)))
    {
        let _ = write!(h, "<tr><td>{}</td>", esc(fam));
        for v in &verdicts {
            let _ = write!(h, "<td>{}</td>", c.get(*v).copied().unwrap_or(0));
        }
        h.push_str("</tr>");
    }
    h.push_str("</table>");
    const HEAD: &str = "<th>verdict</th><th class=\"l\">detail</th><th class=\"l\">file</th></tr>";
    let _ = write!(
        h,
        "<section class=\"group\" id=\"failures\"><h2>Failures ({fails})</h2>"
    );
    if fails == 0 {
        h.push_str("<p>No failures.</p>");
    } else {
        let _ = write!(
            h,
            "<table><tr><th>case</th><th class=\"l\">family</th>{HEAD}"
        );
        for (i, r) in s.results.iter().enumerate() {
            if r.verdict.is_failure() {
                result_row(&mut h, i, r, "", true);
            }
        }
        h.push_str("</table>");
    }
    h.push_str("</section>");
    departures_html(&mut h, s);
    let mut by_fam: BTreeMap<&str, Vec<(usize, &CaseResult)>> = BTreeMap::new();
    for (i, r) in s.results.iter().enumerate() {
        by_fam.entry(&r.family).or_default().push((i, r));
    }
    for (fam, mut rs) in by_fam {
        rs.sort_by_key(|(_, r)| rank(&r.verdict));
        let _ = write!(
            h,
            "<section class=\"group\"><h2>{} ({} case{})</h2><table><tr><th>case</th>{HEAD}",
            esc(fam),
            rs.len(),
            if rs.len() == 1 { "" } else { "s" }
        );
        for (i, r) in rs {
            result_row(&mut h, i, r, " case", false);
        }
        h.push_str("</table></section>");
    }
    let mut divergent: Vec<(usize, &CaseResult)> = s
        .results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.diffs.is_empty())
        .collect();
    divergent.sort_by_key(|(_, r)| rank(&r.verdict));
    if !divergent.is_empty() {
        let _ = write!(
            h,
            "<section class=\"group\"><h2>Divergences ({})</h2><p class=\"legend\">bytes:<span style=\"background:#2ca02c\"></span>match<span style=\"background:#1f77b4\"></span>allowed (uncertain)<span style=\"background:#d62728\"></span>differs</p>",
            divergent.len()
        );
        for (i, r) in divergent {
            let _ = write!(
                h,
                "<section class=\"div row\" id=\"d{i}\" {}><h3>{} — <span{}>{}</span></h3><p>{} · {}</p><p>{}</p>",
                filter_attrs(r),
                esc(&r.case),
                verdict_class(&r.verdict),
                esc(r.verdict.name()),
                esc(&r.family),
                esc(&r.file),
                esc(&super::detail_with_attribution(r))
            );
            for d in &r.diffs {
                region_html(&mut h, d);
            }
            let figs = pictures(r);
            if !figs.is_empty() {
                let _ = write!(
                    h,
                    "<h4>Tensor loads of the case (reference model)</h4>{figs}"
                );
            }
            h.push_str("</section>");
        }
        h.push_str("</section>");
    }
    let _ = writeln!(h, "<script>{SCRIPT}</script></body></html>");
    h
}

/// The findings against the text: every profile position some result departed from, with both
/// readings, then those results.
fn departures_html(h: &mut String, s: &Summary) {
    if s.departures.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<section class=\"group\" id=\"departures\"><h2>Spec departures ({})</h2><p>The hardware followed the sm_90 reading of these positions, not the spec reading (findings against the PTX ISA text; passes under profile {}).</p><table><tr><th>position</th><th class=\"l\">section</th><th class=\"l\">spec reading</th><th class=\"l\">sm_90 reading</th><th>cases</th></tr>",
        s.spec_departures().count(),
        esc(&s.info.profile)
    );
    for (id, n) in &s.departures {
        let p = ptxconform_reference::sem::profile::position(id);
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"d\">{}</td><td class=\"d\">{}</td><td>{n}</td></tr>",
            esc(id),
            esc(p.map_or("", |p| p.section)),
            esc(p.map_or("", |p| p.spec)),
            esc(p.map_or("", |p| p.sm_90)),
        );
    }
    let _ = write!(
        h,
        "</table><table><tr><th>case</th><th class=\"l\">family</th><th>verdict</th><th class=\"l\">detail</th><th class=\"l\">file</th></tr>"
    );
    for (i, r) in s.results.iter().enumerate() {
        if !r.departures.is_empty() {
            result_row(h, i, r, " departure", true);
        }
    }
    h.push_str("</table></section>");
}

/// The report page, with the tensor-load figures of divergent cases read from their case files.
pub fn html(s: &Summary) -> String {
    let mut files = FilePictures::new();
    html_with(s, &mut |r| files.of(r))
}
