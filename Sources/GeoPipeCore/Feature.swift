/// A GeoJSON Feature (RFC 7946 §3.2) as a value.
public struct Feature: Hashable, Sendable {
  /// The `id` member: a string or a number, or nil when absent.
  public var id: JSONValue?
  /// The geometry, or nil for `"geometry": null`.
  public var geometry: Geometry?
  /// The properties in order, or nil for `"properties": null`.
  public var properties: JSONObject?
  /// The feature's `bbox` member as read (west, south, [min z,] east, north, [max z]).
  public var bbox: [Double]?
  /// Members other than type, id, geometry, properties and bbox, in order (§6.1).
  public var foreignMembers: JSONObject

  /// Creates a feature.
  public init(
    id: JSONValue? = nil, geometry: Geometry? = nil, properties: JSONObject? = JSONObject(),
    bbox: [Double]? = nil, foreignMembers: JSONObject = JSONObject()
  ) {
    self.id = id
    self.geometry = geometry
    self.properties = properties
    self.bbox = bbox
    self.foreignMembers = foreignMembers
  }

  /// The value of a property, or nil when the feature has no such property.
  public subscript(property key: String) -> JSONValue? {
    get { properties?[key] }
    set {
      var object = properties ?? JSONObject()
      object[key] = newValue
      properties = object
    }
  }
}
