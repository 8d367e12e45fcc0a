import Foundation

/// Folds names for matching: Unicode compatibility decomposition without marks, letters that
/// do not decompose spelled out (ø → o, ł → l, ß → ss, æ → ae, œ → oe, đ → d, þ → th, ı → i),
/// lowercase, and every run of punctuation or spaces as one space.
///
/// Used when indexing and at query time, so "São Paulo", "SAO PAULO" and "sao-paulo" meet.
/// (SQLite's trigram tokenizer cannot remove diacritics, and unicode61 does not fold these
/// letters.)
public enum NameFolding {
  /// The folded form of a name.
  public static func fold(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    var pendingSpace = false
    for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
      let properties = scalar.properties
      if properties.generalCategory == .nonspacingMark
        || properties.generalCategory == .spacingMark
        || properties.generalCategory == .enclosingMark
      {
        continue
      }
      if properties.isAlphabetic || properties.numericType != nil {
        if pendingSpace && !out.isEmpty { out.append(" ") }
        pendingSpace = false
        if let spelled = special[scalar] {
          out += spelled
        } else {
          out += String(scalar).lowercased()
        }
      } else if scalar == "'" || scalar == "\u{2019}" || scalar == "\u{02BC}" {
        // Apostrophes join: "Val-d'Or" → "val dor", as people type it without them.
        continue
      } else {
        pendingSpace = true
      }
    }
    return out
  }

  private static let special: [Unicode.Scalar: String] = [
    "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae",
    "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d", "þ": "th", "Þ": "th", "ı": "i", "ð": "d",
    "Ð": "d", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŀ": "l", "Ŀ": "l",
  ]
}
