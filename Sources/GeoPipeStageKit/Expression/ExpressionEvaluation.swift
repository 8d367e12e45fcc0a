import GeoPipeCore

extension Expression {
  /// The truth of a condition under SQL's three-valued logic: nil is unknown.
  func truth(in feature: Feature) -> Bool? {
    switch self {
    case .and(let a, let b):
      let x = a.truth(in: feature)
      if x == false { return false }
      let y = b.truth(in: feature)
      if y == false { return false }
      return x == true && y == true ? true : nil
    case .or(let a, let b):
      let x = a.truth(in: feature)
      if x == true { return true }
      let y = b.truth(in: feature)
      if y == true { return true }
      return x == false && y == false ? false : nil
    case .not(let a):
      return a.truth(in: feature).map { !$0 }
    case .compare(let a, let op, let b):
      return op.compare(a.value(in: feature), b.value(in: feature))
    case .isNull(let a, let negated):
      return a.value(in: feature).isNull != negated
    case .within(let a, let list, let negated):
      let subject = a.value(in: feature)
      if subject.isNull { return nil }
      var unknown = false
      for item in list {
        switch ComparisonOperator.equal.compare(subject, item.value(in: feature)) {
        case true?: return !negated
        case nil: unknown = true
        case false?: break
        }
      }
      return unknown ? nil : negated
    case .between(let a, let low, let high, let negated):
      let subject = a.value(in: feature)
      let above = ComparisonOperator.greaterOrEqual.compare(subject, low.value(in: feature))
      if above == false { return negated }
      let below = ComparisonOperator.lessOrEqual.compare(subject, high.value(in: feature))
      if below == false { return negated }
      return above == true && below == true ? !negated : nil
    case .like(let a, let test):
      return test.holds(for: a.value(in: feature), in: feature)
    case .regex(let a, let test):
      return test.holds(for: a.value(in: feature), in: feature)
    case .literal, .property, .arithmetic, .negate, .concat, .choice, .call:
      return value(in: feature).truth
    }
  }

  /// The value for a feature: a missing property, an unknown truth and an undefined result are
  /// null.
  func value(in feature: Feature) -> JSONValue {
    switch self {
    case .literal(let value): return value
    case .property(let name): return feature.properties?[name] ?? .null
    case .arithmetic(let a, let op, let b):
      return op.apply(NumericValue(a.value(in: feature)), NumericValue(b.value(in: feature)))
    case .negate(let a): return NumericValue(a.value(in: feature)).map { $0.negated.json } ?? .null
    case .concat(let a, let b):
      guard let x = a.value(in: feature).expressionText,
        let y = b.value(in: feature).expressionText
      else { return .null }
      return .string(x + y)
    case .choice(let choice):
      return choice.value(in: feature)
    case .call(let function, let arguments):
      return function.apply(arguments, feature)
    case .compare, .isNull, .within, .and, .or, .not, .like, .between, .regex:
      return truth(in: feature).map(JSONValue.bool) ?? .null
    }
  }
}

extension LikeTest {
  /// Whether `subject` matches; unknown when it, the pattern or the escape is null.
  func holds(for subject: JSONValue, in feature: Feature) -> Bool? {
    guard let text = subject.expressionText else { return nil }
    if let compiled { return compiled.matches(text) != negated }
    guard let patternText = pattern.value(in: feature).expressionText else { return nil }
    var escapeScalar: Unicode.Scalar?
    if let escape {
      guard let escapeText = escape.value(in: feature).expressionText else { return nil }
      guard let scalar = LikePattern.escapeScalar(escapeText) else { return nil }
      escapeScalar = scalar
    }
    guard
      let compiled = try? LikePattern(patternText, escape: escapeScalar, ignoringCase: ignoresCase)
    else { return nil }
    return compiled.matches(text) != negated
  }
}

extension RegexTest {
  /// Whether `subject` matches; unknown when it or the pattern is null or the pattern is not
  /// a valid regular expression.
  func holds(for subject: JSONValue, in feature: Feature) -> Bool? {
    guard let text = subject.expressionText else { return nil }
    if let compiled { return compiled.matches(text) != negated }
    guard let patternText = pattern.value(in: feature).expressionText,
      let compiled = try? RegularExpression(patternText, ignoringCase: ignoresCase)
    else { return nil }
    return compiled.matches(text) != negated
  }
}

extension CaseChoice {
  /// The result of the first branch that holds (with a subject: whose value equals it), else
  /// the `else` result, else null.
  func value(in feature: Feature) -> JSONValue {
    if let subject {
      let value = subject.value(in: feature)
      for branch in branches
      where ComparisonOperator.equal.compare(value, branch.when.value(in: feature)) == true {
        return branch.then.value(in: feature)
      }
    } else {
      for branch in branches where branch.when.truth(in: feature) == true {
        return branch.then.value(in: feature)
      }
    }
    return otherwise?.value(in: feature) ?? .null
  }
}
