//! The HTML standard's "rules for parsing a legacy colour value" (as Chromium implements them in
//! `HTMLElement::ParseColorWithLegacyRules`), so `bgcolor="ffffff"` or `color="chucknorris"`
//! become the very colour a browser paints.

/// CSS named colours (CSS Color 4), which legacy parsing accepts before anything else.
const NAMED: &[&str] = &[
    "aliceblue",
    "antiquewhite",
    "aqua",
    "aquamarine",
    "azure",
    "beige",
    "bisque",
    "black",
    "blanchedalmond",
    "blue",
    "blueviolet",
    "brown",
    "burlywood",
    "cadetblue",
    "chartreuse",
    "chocolate",
    "coral",
    "cornflowerblue",
    "cornsilk",
    "crimson",
    "cyan",
    "darkblue",
    "darkcyan",
    "darkgoldenrod",
    "darkgray",
    "darkgreen",
    "darkgrey",
    "darkkhaki",
    "darkmagenta",
    "darkolivegreen",
    "darkorange",
    "darkorchid",
    "darkred",
    "darksalmon",
    "darkseagreen",
    "darkslateblue",
    "darkslategray",
    "darkslategrey",
    "darkturquoise",
    "darkviolet",
    "deeppink",
    "deepskyblue",
    "dimgray",
    "dimgrey",
    "dodgerblue",
    "firebrick",
    "floralwhite",
    "forestgreen",
    "fuchsia",
    "gainsboro",
    "ghostwhite",
    "gold",
    "goldenrod",
    "gray",
    "green",
    "greenyellow",
    "grey",
    "honeydew",
    "hotpink",
    "indianred",
    "indigo",
    "ivory",
    "khaki",
    "lavender",
    "lavenderblush",
    "lawngreen",
    "lemonchiffon",
    "lightblue",
    "lightcoral",
    "lightcyan",
    "lightgoldenrodyellow",
    "lightgray",
    "lightgreen",
    "lightgrey",
    "lightpink",
    "lightsalmon",
    "lightseagreen",
    "lightskyblue",
    "lightslategray",
    "lightslategrey",
    "lightsteelblue",
    "lightyellow",
    "lime",
    "limegreen",
    "linen",
    "magenta",
    "maroon",
    "mediumaquamarine",
    "mediumblue",
    "mediumorchid",
    "mediumpurple",
    "mediumseagreen",
    "mediumslateblue",
    "mediumspringgreen",
    "mediumturquoise",
    "mediumvioletred",
    "midnightblue",
    "mintcream",
    "mistyrose",
    "moccasin",
    "navajowhite",
    "navy",
    "oldlace",
    "olive",
    "olivedrab",
    "orange",
    "orangered",
    "orchid",
    "palegoldenrod",
    "palegreen",
    "paleturquoise",
    "palevioletred",
    "papayawhip",
    "peachpuff",
    "peru",
    "pink",
    "plum",
    "powderblue",
    "purple",
    "rebeccapurple",
    "red",
    "rosybrown",
    "royalblue",
    "saddlebrown",
    "salmon",
    "sandybrown",
    "seagreen",
    "seashell",
    "sienna",
    "silver",
    "skyblue",
    "slateblue",
    "slategray",
    "slategrey",
    "snow",
    "springgreen",
    "steelblue",
    "tan",
    "teal",
    "thistle",
    "tomato",
    "turquoise",
    "violet",
    "wheat",
    "white",
    "whitesmoke",
    "yellow",
    "yellowgreen",
];

/// The CSS colour a browser uses for a legacy colour attribute, or `None` when the attribute
/// sets no colour at all (empty or `transparent`).
pub fn parse_legacy_color(value: &str) -> Option<String> {
    if value.is_empty() {
        return None;
    }
    let input = value.trim_matches(|c: char| c.is_ascii_whitespace());
    if input.eq_ignore_ascii_case("transparent") {
        return None;
    }
    let lower = input.to_ascii_lowercase();
    if NAMED.contains(&lower.as_str()) {
        return Some(lower);
    }
    let bytes = input.as_bytes();
    if input.len() == 4 && bytes[0] == b'#' && bytes[1..].iter().all(u8::is_ascii_hexdigit) {
        let d: Vec<char> = lower[1..].chars().collect();
        return Some(format!("#{0}{0}{1}{1}{2}{2}", d[0], d[1], d[2]));
    }
    // The legacy algorithm proper.
    let mut s: Vec<char> = Vec::new();
    for c in input.chars() {
        if u32::from(c) > 0xFFFF {
            s.extend(['0', '0']);
        } else {
            s.push(c);
        }
    }
    s.truncate(128);
    if s.first() == Some(&'#') {
        s.remove(0);
    }
    for c in s.iter_mut() {
        if !c.is_ascii_hexdigit() {
            *c = '0';
        }
    }
    while s.is_empty() || !s.len().is_multiple_of(3) {
        s.push('0');
    }
    let len = s.len() / 3;
    let mut parts: Vec<Vec<char>> = s.chunks(len).map(|c| c.to_vec()).collect();
    if len > 8 {
        for p in parts.iter_mut() {
            p.drain(..len - 8);
        }
    }
    while parts[0].len() > 2 && parts.iter().all(|p| p[0] == '0') {
        for p in parts.iter_mut() {
            p.remove(0);
        }
    }
    for p in parts.iter_mut() {
        p.truncate(2);
    }
    let hex: String = parts
        .iter()
        .map(|p| {
            let v = u8::from_str_radix(&p.iter().collect::<String>(), 16).unwrap_or(0);
            format!("{v:02x}")
        })
        .collect();
    Some(format!("#{hex}"))
}

#[cfg(test)]
mod tests {
    use super::parse_legacy_color as c;

    #[test]
    fn valid_colours_and_names_pass_through() {
        assert_eq!(c("#FFFFFF").as_deref(), Some("#ffffff"));
        assert_eq!(c(" Red ").as_deref(), Some("red"));
        assert_eq!(c("#fc0").as_deref(), Some("#ffcc00"));
    }

    #[test]
    fn legacy_values_parse_the_way_browsers_parse_them() {
        assert_eq!(c("ffffff").as_deref(), Some("#ffffff"));
        assert_eq!(c("chucknorris").as_deref(), Some("#c00000"));
        assert_eq!(c("#1234567890").as_deref(), Some("#125690"));
        assert_eq!(c("fff").as_deref(), Some("#0f0f0f"));
        assert_eq!(c("   ").as_deref(), Some("#000000"));
    }

    #[test]
    fn empty_and_transparent_set_no_colour() {
        assert_eq!(c(""), None);
        assert_eq!(c("Transparent"), None);
    }
}
