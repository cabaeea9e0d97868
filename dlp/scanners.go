package dlp

// Category groups scanners by the kind of data they find.
type Category string

// Scanner categories.
const (
	Credential Category = "credential" // keys, tokens, passwords
	PII        Category = "pii"        // personal identifiers
	PHI        Category = "phi"        // health information
	PCI        Category = "pci"        // payment data
	Marker     Category = "marker"     // classification markings
)

// Scanner describes one detector of the static table. The matching code
// lives in the match functions the trigger table (triggers.go) points at;
// the table here carries what callers see: the id, the class a match
// gives the text, and the default action.
type Scanner struct {
	ID          string
	Description string
	Category    Category
	Class       Class
	Action      Action // default; New can override it per scanner

	prefix  int  // bytes of public format prefix a preview may show
	generic bool // yields to a specific credential scanner on the same span
}

// scannerID indexes the scanners table.
type scannerID uint8

const (
	idPrivateKey scannerID = iota
	idAWSAccessKeyID
	idAWSSecretKey
	idGCPAPIKey
	idGCPOAuthSecret
	idAzureStorageKey
	idAzureClientSecret
	idGitHubToken
	idGitLabToken
	idSlackToken
	idSlackWebhook
	idStripeKey
	idOpenAIKey
	idAnthropicKey
	idNPMToken
	idPyPIToken
	idSendGridKey
	idCryptoKey
	idSeedPhrase
	idJWT
	idBasicAuth
	idBearerToken
	idConnString
	idEncodedURLSecret
	idEncodedSecret
	idGenericSecret
	idSecretMarker
	idEmail
	idPhone
	idUSSSN
	idUKNINO
	idESDNI
	idCASIN
	idDOB
	idStreetAddress
	idMRN
	idPHIMarker
	idHealthInfo
	idCard
	idIBAN
	idCryptoAddress
	idConfidentialMarker
	idPublicMarker
	numScanners
)

// scanners is the table, in report order. Credentials first (specific
// formats, then the generic ones that yield to them), then personal,
// health and payment data, then markings.
var scanners = [numScanners]Scanner{
	idPrivateKey:      {ID: "private_key", Description: "PEM, OpenSSH or PGP private key block", Category: Credential, Class: Secret, Action: Block},
	idAWSAccessKeyID:  {ID: "aws_access_key_id", Description: "AWS access key id (AKIA, ASIA, ABIA, ACCA)", Category: Credential, Class: Secret, Action: Redact, prefix: 4},
	idAWSSecretKey:    {ID: "aws_secret_access_key", Description: "AWS secret access key assigned to an aws_secret_access_key-like name", Category: Credential, Class: Secret, Action: Redact},
	idGCPAPIKey:       {ID: "gcp_api_key", Description: "Google Cloud / Firebase API key (AIza...)", Category: Credential, Class: Secret, Action: Redact, prefix: 4},
	idGCPOAuthSecret:  {ID: "gcp_oauth_client_secret", Description: "Google OAuth client secret (GOCSPX-...)", Category: Credential, Class: Secret, Action: Redact, prefix: 7},
	idAzureStorageKey: {ID: "azure_storage_key", Description: "Azure storage account key (AccountKey=...)", Category: Credential, Class: Secret, Action: Redact},
	idAzureClientSecret: {ID: "azure_client_secret", Description: "Azure AD / Entra ID client secret (...Q~...)",
		Category: Credential, Class: Secret, Action: Redact},
	idGitHubToken:  {ID: "github_token", Description: "GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)", Category: Credential, Class: Secret, Action: Redact, prefix: 4},
	idGitLabToken:  {ID: "gitlab_token", Description: "GitLab token (glpat-, gldt-, glrt-, glptt-, glcbt-)", Category: Credential, Class: Secret, Action: Redact, prefix: 5},
	idSlackToken:   {ID: "slack_token", Description: "Slack bot, user, app or refresh token (xoxb-, xoxp-, xapp-, ...)", Category: Credential, Class: Secret, Action: Redact, prefix: 5},
	idSlackWebhook: {ID: "slack_webhook", Description: "Slack incoming webhook URL", Category: Credential, Class: Secret, Action: Redact},
	idStripeKey:    {ID: "stripe_key", Description: "Stripe live secret or restricted key, or webhook signing secret", Category: Credential, Class: Secret, Action: Redact, prefix: 8},
	idOpenAIKey:    {ID: "openai_key", Description: "OpenAI API key (sk-proj-, sk-svcacct-, sk-admin-, legacy sk-)", Category: Credential, Class: Secret, Action: Redact, prefix: 3},
	idAnthropicKey: {ID: "anthropic_key", Description: "Anthropic API key (sk-ant-...)", Category: Credential, Class: Secret, Action: Redact, prefix: 7},
	idNPMToken:     {ID: "npm_token", Description: "npm access token (npm_...)", Category: Credential, Class: Secret, Action: Redact, prefix: 4},
	idPyPIToken:    {ID: "pypi_token", Description: "PyPI upload token (pypi-AgE...)", Category: Credential, Class: Secret, Action: Redact, prefix: 5},
	idSendGridKey:  {ID: "sendgrid_key", Description: "SendGrid API key (SG.x.y)", Category: Credential, Class: Secret, Action: Redact, prefix: 3},
	idCryptoKey: {ID: "crypto_private_key", Description: "Bitcoin WIF private key (base58check) or Ethereum private key (0x + 64 hex under a key label)",
		Category: Credential, Class: Secret, Action: Block},
	idSeedPhrase: {ID: "bip39_seed_phrase", Description: "wallet seed phrase: 12 to 24 BIP39 English words with a valid checksum",
		Category: Credential, Class: Secret, Action: Block},
	idJWT:         {ID: "jwt", Description: "JSON Web Token whose header decodes to JSON naming alg", Category: Credential, Class: Secret, Action: Redact, prefix: 3},
	idBasicAuth:   {ID: "basic_auth", Description: "HTTP Basic credentials (base64 user:password)", Category: Credential, Class: Secret, Action: Redact},
	idBearerToken: {ID: "bearer_token", Description: "HTTP Bearer token of high entropy", Category: Credential, Class: Secret, Action: Redact, generic: true},
	idConnString:  {ID: "connection_string_password", Description: "password in a URL or connection string", Category: Credential, Class: Secret, Action: Redact, generic: true},
	idEncodedURLSecret: {ID: "encoded_url_secret", Description: "credential or payment data inside a URL once decoded (%XX, base64, hex, zero-width or separator splits)",
		Category: Credential, Class: Secret, Action: Block, generic: true},
	idEncodedSecret: {ID: "encoded_secret", Description: "credential or payment data inside a base64, hex or %XX-encoded value once decoded",
		Category: Credential, Class: Secret, Action: Block},
	idGenericSecret: {ID: "generic_secret", Description: "high-entropy value assigned to a password, secret, token or key name", Category: Credential, Class: Secret, Action: Redact, generic: true},
	idSecretMarker:  {ID: "secret_marker", Description: "marking: TOP SECRET, TLP:RED, classification secret or restricted", Category: Marker, Class: Secret, Action: Monitor},
	idEmail:         {ID: "email", Description: "email address (reserved example domains excluded)", Category: PII, Class: Sensitive, Action: Monitor},
	idPhone:         {ID: "phone_number", Description: "phone number: international +CC form or formatted North American", Category: PII, Class: Sensitive, Action: Monitor},
	idUSSSN:         {ID: "us_ssn", Description: "US social security number (area, group and serial rules)", Category: PII, Class: Sensitive, Action: Redact},
	idUKNINO:        {ID: "uk_nino", Description: "UK national insurance number (prefix and suffix rules)", Category: PII, Class: Sensitive, Action: Redact},
	idESDNI:         {ID: "es_dni", Description: "Spanish DNI or NIE (mod-23 check letter)", Category: PII, Class: Sensitive, Action: Redact},
	idCASIN:         {ID: "ca_sin", Description: "Canadian social insurance number near its label (Luhn)", Category: PII, Class: Sensitive, Action: Redact},
	idDOB:           {ID: "date_of_birth", Description: "calendar date labelled as a date of birth", Category: PII, Class: Sensitive, Action: Redact},
	idStreetAddress: {ID: "street_address", Description: "street address after a residence cue (lives at, home address) or followed by a locality and postal code", Category: PII, Class: Sensitive, Action: Monitor},
	idMRN:           {ID: "medical_record_number", Description: "medical record or patient number under its label", Category: PHI, Class: Sensitive, Action: Redact},
	idPHIMarker:     {ID: "phi_marker", Description: "clinical document phrases (patient name, chief complaint, discharge summary, ...)", Category: PHI, Class: Sensitive, Action: Monitor},
	idHealthInfo:    {ID: "health_condition", Description: "a person's health in prose (diagnosed with, suffers from, undergoing chemotherapy, on medical leave, ...)", Category: PHI, Class: Sensitive, Action: Monitor},
	idCard:          {ID: "credit_card", Description: "payment card number (network prefix, length, Luhn; published test cards excluded)", Category: PCI, Class: Sensitive, Action: Redact},
	idIBAN:          {ID: "iban", Description: "IBAN (country length table, mod-97 check)", Category: PCI, Class: Sensitive, Action: Redact, prefix: 2},
	// A wallet address is public by design: it names where money goes and
	// is looked up on explorers, so it does not raise the class of a text
	// (Normal) and is only recorded; the gate judges where it is sent.
	idCryptoAddress: {ID: "crypto_address", Description: "Bitcoin address (base58check P2PKH/P2SH, bech32/bech32m) or Ethereum address (EIP-55 checksum; lowercase under an address label)",
		Category: PCI, Class: Normal, Action: Monitor, prefix: 2},
	idConfidentialMarker: {ID: "confidential_marker", Description: "marking: CONFIDENTIAL, internal use only, do not distribute, TLP:AMBER/GREEN",
		Category: Marker, Class: Sensitive, Action: Monitor},
	idPublicMarker: {ID: "public_marker", Description: "marking: TLP:CLEAR/WHITE, classification public, approved for public release", Category: Marker, Class: Public, Action: Monitor},
}

// Scanners returns a copy of the scanner table in report order, with the
// default actions.
func Scanners() []Scanner {
	out := make([]Scanner, len(scanners))
	copy(out, scanners[:])
	return out
}

// scannerIndex maps ids to table positions.
func scannerIndex() map[string]scannerID {
	m := make(map[string]scannerID, len(scanners))
	for i := range scanners {
		m[scanners[i].ID] = scannerID(i)
	}
	return m
}
