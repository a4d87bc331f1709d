-- Placeholder: filled by the identity work of issue 15 (token revocation).
SELECT 1;
