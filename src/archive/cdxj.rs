//! CDXJ index lines, as cdxj-indexer writes them and as ReplayWeb.page and pywb look URLs up
//! in them: `SURT TIMESTAMP {"url": …, "mime": …, "status": …, "digest": …, "length": …,
//! "offset": …, "filename": …}`, sorted by key and time so that a binary search finds a URL.
//! The JSON is written field by field in that order, with Python's separators and ASCII
//! escapes, so that the lines are cdxj-indexer's byte for byte.

use super::stamp::Stamp;
use super::surt;

/// One record's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub url: String,
    pub date: Stamp,
    /// `Content-Type` without parameters: HTTP's for a response, the record's otherwise.
    pub mime: Option<String>,
    pub status: Option<u16>,
    pub digest: Option<String>,
    pub length: u64,
    pub offset: u64,
    pub filename: String,
}

impl Line {
    pub fn key(&self) -> String {
        surt::key(&self.url)
    }

    /// The line, without its newline.
    pub fn render(&self) -> String {
        let mut fields: Vec<(&str, String)> = vec![("url", self.url.clone())];
        if let Some(m) = &self.mime {
            fields.push(("mime", m.clone()));
        }
        if let Some(s) = self.status {
            fields.push(("status", s.to_string()));
        }
        if let Some(d) = &self.digest {
            fields.push(("digest", d.clone()));
        }
        fields.push(("length", self.length.to_string()));
        fields.push(("offset", self.offset.to_string()));
        fields.push(("filename", self.filename.clone()));
        let json: Vec<String> = fields
            .iter()
            .map(|(k, v)| format!("\"{k}\": {}", python_json_string(v)))
            .collect();
        format!(
            "{} {} {{{}}}",
            self.key(),
            self.date.to14(),
            json.join(", ")
        )
    }
}

/// A JSON string as Python's `json.dumps` writes it (`ensure_ascii`): non-ASCII as `\uXXXX`.
fn python_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The lines sorted as an index must be (by key, then time, then the rendered line).
pub fn sorted(lines: &[Line]) -> Vec<String> {
    let mut rendered: Vec<String> = lines.iter().map(Line::render).collect();
    rendered.sort();
    rendered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_the_fields_of_cdxj_indexer_in_its_order() {
        let line = Line {
            url: "http://www.example.com/a?b=1".into(),
            date: Stamp::parse14("19970315000000").unwrap(),
            mime: Some("text/html".into()),
            status: Some(200),
            digest: Some("sha1:AAAA".into()),
            length: 10,
            offset: 0,
            filename: "data.warc.gz".into(),
        };
        assert_eq!(
            line.render(),
            "com,example)/a?b=1 19970315000000 {\"url\": \"http://www.example.com/a?b=1\", \
             \"mime\": \"text/html\", \"status\": \"200\", \"digest\": \"sha1:AAAA\", \
             \"length\": \"10\", \"offset\": \"0\", \"filename\": \"data.warc.gz\"}"
        );
        assert_eq!(python_json_string("café"), "\"caf\\u00e9\"");
    }
}
