// Great-circle distance in meters, exactly as Meilisearch computes `_geoRadius` and `_geoDistance`:
// milli's distance_between_two_points is the geoutils crate's haversine, hav(θ) = (1 - cos θ) / 2 on a
// sphere of 6,371,000 m, rounded to the millimetre. (A 6,371,008.8 m mean radius put us ~14 m off at
// 9,700 km.)

const EARTH_RADIUS_METERS = 6_371_000;
const RADIANS = Math.PI / 180;

export function haversineMeters(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const phi1 = lat1 * RADIANS;
  const phi2 = lat2 * RADIANS;
  const total = (1 - Math.cos(phi2 - phi1)) / 2 + Math.cos(phi1) * Math.cos(phi2) * ((1 - Math.cos(lng2 * RADIANS - lng1 * RADIANS)) / 2);
  // min(1): rounding can push antipodal points just past 1, where asin is NaN (milli's distance then too).
  return Math.round(2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(total))) * 1000) / 1000;
}

/** `_geoRadius` keeps a point when its distance is at most the radius (plus f64::EPSILON, as milli). */
export function withinRadius(meters: number, radius: number): boolean {
  return meters <= radius + Number.EPSILON;
}
