-- Placeholder: filled by the consistency work of issue 15 (configure serialisation, singular links, provisioning intents).
SELECT 1;
