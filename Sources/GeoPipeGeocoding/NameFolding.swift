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
    foldASCII(text) ?? foldScalars(text)
  }

  /// The folding through Unicode's tables, for any text.
  static func foldScalars(_ text: String) -> String {
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

  /// The same folding for ASCII text, without Unicode tables (most names are ASCII); nil
  /// when the text has other characters.
  private static func foldASCII(_ text: String) -> String? {
    var text = text
    return text.withUTF8 { bytes -> String? in
      var out: [UInt8] = []
      out.reserveCapacity(bytes.count)
      var pendingSpace = false
      for byte in bytes {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
          if pendingSpace && !out.isEmpty { out.append(UInt8(ascii: " ")) }
          pendingSpace = false
          out.append(byte)
        case UInt8(ascii: "A")...UInt8(ascii: "Z"):
          if pendingSpace && !out.isEmpty { out.append(UInt8(ascii: " ")) }
          pendingSpace = false
          out.append(byte | 0x20)
        case UInt8(ascii: "'"): continue
        case 0x80...: return nil
        default: pendingSpace = true
        }
      }
      return String(decoding: out, as: UTF8.self)
    }
  }

  private static let special: [Unicode.Scalar: String] = [
    "ø": "o", "Ø": "o", "ł": "l", "Ł": "l", "ß": "ss", "ẞ": "ss", "æ": "ae", "Æ": "ae",
    "œ": "oe", "Œ": "oe", "đ": "d", "Đ": "d", "þ": "th", "Þ": "th", "ı": "i", "ð": "d",
    "Ð": "d", "ħ": "h", "Ħ": "h", "ŧ": "t", "Ŧ": "t", "ŀ": "l", "Ŀ": "l",
  ]
}
