// Which of $digests are certificates the store issued, with their requests' tenants and
// reach (a certificate's link to its predecessor names one of the same reach).
MATCH (req:DeletionRequest)
WHERE req.certificate_digest IN $digests
RETURN req.certificate_digest AS digest, req.id AS request_id, req.tenants AS tenants,
  req.reach_json AS reach
